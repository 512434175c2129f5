/**
 * The seam of the {@code lock-benchmarks} module: {@link io.github.redislock.core.bench.LockInternals}.
 *
 * <p><b>Internal:</b> for the project's own benchmarks only. No API, no compatibility promise; it may change
 * or go in any release.
 */
package io.github.redislock.core.bench;
