/**
 * The auto-configuration of what differs on Spring Boot 3.5 (the health indicator), listed in this module's
 * {@code AutoConfiguration.imports}. Apart from {@code io.github.redislock.autoconfigure}, which belongs to
 * {@code lock-autoconfigure}: a package split over two jars fails on the module path.
 */
package io.github.redislock.boot3.autoconfigure;
