package io.github.redislock.core.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.core.io.ClassPathResource;

/** The Lua scripts of the lock, loaded once from the {@code .lua} resources beside this class. */
public enum LockScript {

    ACQUIRE("acquire.lua"),
    RELEASE("release.lua"),
    RENEW("renew.lua"),
    RENEW_LEASES("renew-leases.lua"),
    READ_WRITE("read-write.lua"),
    FAIR("fair.lua"),
    FORCE_RELEASE("force-release.lua"),
    CLAIM("claim.lua");

    private final String resource;
    private final byte[] body;
    /** The SHA-1 Redis knows the script by, for EVALSHA. */
    private final String sha1Hex;

    LockScript(String resource) {
        this.resource = resource;
        try (InputStream in = LockScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the classpath beside " + LockScript.class.getName());
            }
            this.body = in.readAllBytes();
            this.sha1Hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read Lua script " + resource, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }

    public byte[] body() {
        return body;
    }

    public String sha1Hex() {
        return sha1Hex;
    }

    /**
     * Keeps the scripts in a native image, which leaves out every classpath resource no hint names; the list
     * is this enum's own, so a script added here is kept. Registered in {@code META-INF/spring/aot.factories}.
     */
    public static final class NativeImageHints implements RuntimeHintsRegistrar {

        @Override
        public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
            for (LockScript script : values()) {
                hints.resources().registerResource(new ClassPathResource(script.resource, LockScript.class));
            }
        }
    }
}
