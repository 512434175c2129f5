package io.github.redislock.observation;

/**
 * Gives each lock the low-cardinality name its metrics are tagged with ({@code lock.name}). Lock keys
 * usually carry ids ({@code order:42}), and a tag per id would flood the metrics backend, so the
 * default names every lock of a plain {@code Locker} call {@value #DEFAULT_NAME}. Declare a bean to
 * tell locks apart, e.g. by the part of the key before the first ':'. A name the caller gives
 * explicitly (the annotated method) wins over this.
 */
@FunctionalInterface
public interface LockNamer {

    /** The name of locks nobody named. */
    String DEFAULT_NAME = "locker";

    /** Names every lock {@value #DEFAULT_NAME}. */
    LockNamer DEFAULT = key -> DEFAULT_NAME;

    /** @return a name out of a small, fixed set; never the key itself */
    String name(String key);
}
