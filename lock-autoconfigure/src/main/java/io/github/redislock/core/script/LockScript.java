package io.github.redislock.core.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

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
    private final byte[] sha1;
    private final String sha1Hex;

    LockScript(String resource) {
        this.resource = resource;
        this.body = load(resource);
        this.sha1Hex = sha1Hex(body);
        this.sha1 = sha1Hex.getBytes(StandardCharsets.US_ASCII);
    }

    public byte[] body() {
        return body;
    }

    /** The SHA-1 Redis knows the script by, for EVALSHA. */
    byte[] sha1() {
        return sha1;
    }

    public String sha1Hex() {
        return sha1Hex;
    }

    String resource() {
        return resource;
    }

    private static byte[] load(String resource) {
        try (InputStream in = LockScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the classpath beside " + LockScript.class.getName());
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read Lua script " + resource, e);
        }
    }

    private static String sha1Hex(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }
}
