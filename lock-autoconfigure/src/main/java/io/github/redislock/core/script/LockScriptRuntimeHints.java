package io.github.redislock.core.script;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.core.io.ClassPathResource;

/**
 * Keeps the lock's Lua scripts in a native image: GraalVM leaves out every classpath resource no hint
 * names, and {@link LockScript} reads its scripts as resources on first use, so without these hints the
 * first lock call of a native application would fail. The list is {@link LockScript}'s own, not a copy:
 * a script added there is kept without touching this class. Registered in {@code META-INF/spring/aot.factories}.
 */
public class LockScriptRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        for (LockScript script : LockScript.values()) {
            hints.resources().registerResource(new ClassPathResource(script.resource(), LockScript.class));
        }
    }
}
