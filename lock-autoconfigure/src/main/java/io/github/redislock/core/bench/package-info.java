/** <b>Internal</b>: the seam of the {@code lock-benchmarks} module (a split package would fail on the module path); no API. */
package io.github.redislock.core.bench;
