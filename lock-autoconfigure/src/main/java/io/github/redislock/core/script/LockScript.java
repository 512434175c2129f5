package io.github.redislock.core.script;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.core.io.ClassPathResource;

/** The Lua scripts of the lock, loaded once from the {@code .lua} resources beside this class (ACQUIRE is {@code acquire.lua}). */
public enum LockScript {

    ACQUIRE, RELEASE, RENEW, RENEW_LEASES, READ_WRITE, FAIR, FORCE_RELEASE, CLAIM, TOKEN;

    private final byte[] body;
    private final String sha1Hex;

    LockScript() {
        try (InputStream in = LockScript.class.getResourceAsStream(resource())) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource() + " is missing from the classpath beside " + LockScript.class.getName());
            }
            this.body = in.readAllBytes();
            this.sha1Hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("Cannot load Lua script " + resource(), e);
        }
    }

    private String resource() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-') + ".lua";
    }

    public byte[] body() {
        return body;
    }

    public String sha1Hex() {
        return sha1Hex;
    }

    /** Keeps the scripts in a native image, which leaves out every resource no hint names. Registered in {@code META-INF/spring/aot.factories}. */
    public static final class NativeImageHints implements RuntimeHintsRegistrar {

        @Override
        public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
            for (LockScript script : values()) {
                hints.resources().registerResource(new ClassPathResource(script.resource(), LockScript.class));
            }
        }
    }
}
