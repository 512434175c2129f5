package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of leader election ({@code redis-lock.leader.*}), for our {@code LeaderElection} and for the
 * roles that Spring Integration's {@code LockRegistryLeaderInitiator} elects on our {@code LockRegistry}.
 */
@ConfigurationProperties(prefix = "redis-lock.leader", ignoreUnknownFields = false) // a role name with a dot must not vanish unbound
public class RedisLockLeaderProperties implements InitializingBean {

    /** The characters of a map key that Spring Boot drops when the key is written without brackets. */
    private static final String NOT_KEPT_UNBRACKETED = "[^A-Za-z0-9_-]";

    /**
     * How long a role's lock outlives its leader's last renewal: a leader killed outright is replaced
     * within it, and one paused longer loses the role. Renewed every third of it. At least 100ms.
     */
    private Duration lease = Duration.ofSeconds(3);

    /**
     * Per role (the key of its lock), a lease that differs from redis-lock.leader.lease. A key with
     * characters other than letters, digits, '-' and '_' goes in brackets: roles[orders:poller].lease.
     */
    private final Map<String, Role> roles = new LinkedHashMap<>();

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = checked("redis-lock.leader.lease", lease);
    }

    public Map<String, Role> getRoles() {
        return roles;
    }

    /** The lease of {@code role}: its own, else the default. */
    public Duration leaseOf(String role) {
        Role settings = hasSettings(role) ? roles.get(role) : null;
        return settings != null && settings.getLease() != null ? settings.getLease() : lease;
    }

    /**
     * Whether {@code role} has settings of its own. Spring Boot keeps only the letters, digits, '-' and '_' of a
     * map key written without brackets, so a lock key such as {@code orders:poller} may be bound under another
     * name: that is refused, naming the property to write, rather than leaving the role on the default lease.
     *
     * @throws IllegalStateException when the role's settings were bound under such a stripped name
     */
    public boolean hasSettings(String role) {
        String bound = role.replaceAll(NOT_KEPT_UNBRACKETED, "");
        if (!roles.containsKey(role) && !bound.equals(role) && roles.containsKey(bound)) {
            throw new IllegalStateException("Role '" + role + "' has no settings under redis-lock.leader.roles, but '" + bound + "' has: Spring Boot"
                    + " keeps only the letters, digits, '-' and '_' of a key written without brackets. Write " + leaseProperty(role)
                    + " (in YAML: \"[" + role + "]\":) to give the role its lease");
        }
        return roles.containsKey(role);
    }

    /** Checks each role's lease once bound: only here is the role's name, hence its property's, known. */
    @Override
    public void afterPropertiesSet() {
        roles.forEach((role, settings) -> {
            if (settings.getLease() != null) {
                checked(leaseProperty(role), settings.getLease());
            }
        });
    }

    /** The property of {@code role}'s lease as it must be written: in brackets when Spring Boot would drop some of its characters. */
    private static String leaseProperty(String role) {
        return "redis-lock.leader.roles" + (role.matches(".*" + NOT_KEPT_UNBRACKETED + ".*") ? "[" + role + "]" : "." + role) + ".lease";
    }

    static Duration checked(String property, Duration lease) {
        if (lease == null || lease.toMillis() < 100) {
            throw new IllegalArgumentException(property + " must be at least 100ms, but was " + lease);
        }
        return lease;
    }

    /** The settings of one role. */
    public static class Role {

        /**
         * How long this role's lock outlives its leader's last renewal; unset: redis-lock.leader.lease. At
         * least 100ms.
         */
        private Duration lease;

        public Duration getLease() {
            return lease;
        }

        /** Checked with the role's name once all roles are bound ({@link RedisLockLeaderProperties#afterPropertiesSet}). */
        public void setLease(Duration lease) {
            this.lease = lease;
        }
    }
}
