package io.github.redislock.reliability;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.LockLostEvent;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.integration.LockerLockRegistry;
import io.github.redislock.leader.LockerLeaderElection;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * One application instance of a leader-election run, as its own JVM ({@link WorkerProcess}): a candidate
 * for one role that, while it leads, acts every 20 ms (a write with its term to the {@link LeaderStore}). Kinds:
 * {@code ours} (our {@link LockerLeaderElection}), {@code initiator} (Spring Integration's
 * LockRegistryLeaderInitiator on our {@link LockerLockRegistry}), {@code peer} (the same initiator on
 * Spring Integration's RedisLockRegistry); each with the same lease. Told to leave through the store, it
 * stops its candidacy gracefully and exits.
 *
 * <p>Arguments: {@code lockPort storePort worker kind role leaseMillis}.
 */
public final class LeaderWorker {

    private LeaderWorker() {
    }

    public static void main(String[] args) throws Exception {
        int lockPort = Integer.parseInt(args[0]);
        LeaderStore store = LeaderStore.connect(Integer.parseInt(args[1]));
        String worker = args[2];
        String kind = args[3];
        String role = args[4];
        Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3))); // never outlive the test

        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", lockPort),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();

        AtomicBoolean leading = new AtomicBoolean();
        AtomicLong term = new AtomicLong();
        Runnable leave;
        Candidacy[] candidacy = new Candidacy[1];
        if (kind.equals("ours")) {
            LockerLeaderElection[] election = new LockerLeaderElection[1];
            RedisLocker locker = RedisLocker.builder(factory).keyPrefix("leader:").watchdogTimeout(lease).events(event -> {
                if (event instanceof LockLostEvent lost) {
                    election[0].onApplicationEvent(lost);
                }
            }).build();
            election[0] = new LockerLeaderElection(locker);
            candidacy[0] = election[0].join(role, new LeadershipListener() {
                @Override
                public void granted(Candidacy candidacy, long granted) {
                    store.granted(worker, granted);
                    term.set(granted); // isLeader() is true already: the work starts once the grant is on record
                }

                @Override
                public void revoked(Candidacy candidacy, long ended, String reason) {
                    store.revoked(worker);
                }
            });
            leave = candidacy[0]::close;
        } else {
            LockRegistry registry;
            if (kind.equals("initiator")) {
                RedisLocker locker = RedisLocker.builder(factory).keyPrefix("leader:").watchdogTimeout(lease).build();
                registry = new LockerLockRegistry<>(locker);
            } else {
                registry = new RedisLockRegistry(factory, "peer", lease.toMillis());
            }
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new DefaultCandidate(worker, role) {
                @Override
                public void onGranted(Context context) {
                    long granted = registry instanceof LockerLockRegistry<?> ours ? ours.obtain(role).fencingToken() : 0;
                    term.set(granted);
                    leading.set(true);
                    store.granted(worker, granted);
                }

                @Override
                public void onRevoked(Context context) {
                    leading.set(false);
                    store.revoked(worker);
                }
            });
            initiator.setApplicationEventPublisher(event -> {
            });
            initiator.start();
            leave = () -> {
                initiator.stop();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (leading.get() && System.nanoTime() < deadline) { // its selector unlocks, then revokes, on its own thread
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            };
        }
        store.started(worker);

        while (true) {
            if (store.leaveRequested(worker)) {
                store.mark("leaving", worker); // the stop begins here: noticing the request is this loop's polling, not the election's
                leave.run();
                store.mark("left", worker);
                Runtime.getRuntime().halt(0);
            }
            // Check, then act: a pause between the two lets one action out on the old term, which its term fences.
            if (candidacy[0] != null) {
                try {
                    long current = candidacy[0].term();
                    if (current == term.get()) {
                        store.act(worker, current);
                    }
                } catch (IllegalStateException notLeader) {
                    // not leading now
                }
            } else if (leading.get()) {
                store.act(worker, term.get());
            }
            Thread.sleep(20);
        }
    }
}
