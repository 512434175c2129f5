/**
 * <b>Internal:</b> the seam of the {@code lock-benchmarks} module, {@link io.github.redislock.core.bench.LockInternals}
 * (a split package would fail on the module path). No API, no compatibility promise.
 */
package io.github.redislock.core.bench;
