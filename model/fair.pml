/*
 * The fair lock (fair.lua) as SPIN checks it: a first model, of its holds, its queue of owners and its
 * fencing tokens under lost replies, lease ends and lapsing places. See docs/reliability.md ("The fair
 * lock: what a model would check") and model/verify.sh, which runs it.
 *
 * Three threads, each its own owner in its own Locker, take the fair lock with the watchdog; thread 0
 * may re-enter once. fair.lua's calls (acquire, release, leave) are atomic steps; the client steps
 * mirror LockAttempts.QueuedLock (fair) and HeldLocks. The environment may lose a reply after the
 * script ran, end a lease that nothing renews (with -DLATE_RENEWALS=n, n that the watchdog renews),
 * lapse a queue place nobody refreshes, and let the fencing counter expire under a held lock (it
 * expires with the first lease; renewals lengthen only the hash).
 *
 *   default       the code: the owner's last unlock (as its client counts) frees its field whatever Redis
 *                 counts (fair.lua's release with ARGV[3] '0', as release.lua's fix E)
 *   -DBROKEN_COUNTS_FROM_REDIS  the code before that fix: fair.lua's release counted down what Redis counts,
 *                 and a final release that found holds left kept the hold with Redis' count, watched again
 *                 (HeldLocks.java "watchdog.watch(hold); // Redis counted more holds than we did; keep it alive")
 *
 * Abstractions: time is not modelled (a lease ends whenever nothing renews it); 'your-turn' messages only
 * wake a waiter, which may retry at any moment, so they are not modelled; the Redis clock is a counter
 * that advances at every take (a later call reads a later TIME; the counter's +1 never passes it).
 */

#define NT 3
#define OWNER(t) ((t) + 1)
#ifndef REENTRIES
#define REENTRIES 1
#endif
#ifndef LOST_REPLIES
#define LOST_REPLIES 1
#endif
#ifndef LATE_RENEWALS
#define LATE_RENEWALS 0
#endif

/* Redis */
byte rc[NT + 1];             /* the hash: hold count per owner field */
byte fq[NT];                 /* the queue of owners, oldest first */
bool fl[NT];                 /* the place's deadline passed */
byte fqn;
byte fence;                  /* the fencing counter (0: missing) */
byte clock;
byte lastTok;
#define HELD (rc[1] > 0 || rc[2] > 0 || rc[3] > 0)
#define ROWNER (rc[1] > 0 -> 1 : (rc[2] > 0 -> 2 : (rc[3] > 0 -> 3 : 0)))
#define QUEUED(o) ((fqn > 0 && fq[0] == o) || (fqn > 1 && fq[1] == o) || (fqn > 2 && fq[2] == o))

/* clients (HeldLocks: one Hold per owner, each owner in a Locker of its own) */
bool hk[NT + 1];
byte hcnt[NT + 1];
bool hw[NT + 1];             /* watched: the watchdog renews it */
bool hlost[NT + 1];
byte bel[NT];                /* holds the thread believes it has */
bool busy[NT];               /* inside lock() or unlock() */
bool waiting[NT];            /* inside lock(): its place is refreshed */
bool ended[NT];              /* the lease behind the belief ended */
byte lostReplies = LOST_REPLIES;
byte lateRenewals = LATE_RENEWALS;
byte si, sf;

#define RENEWED(o) (hk[o] && hw[o] && !hlost[o])
#define BEHIND(o) (bel[(o) - 1] > 0 || busy[(o) - 1])
#define BELIEF_OK(t) (bel[t] == 0 || ended[t] || ROWNER == 0 || ROWNER == OWNER(t))

inline check() {
    assert((rc[1] > 0) + (rc[2] > 0) + (rc[3] > 0) <= 1);   /* property: one_owner */
    assert(BELIEF_OK(0) && BELIEF_OK(1) && BELIEF_OK(2));   /* property: no_false_belief */
    assert((!(rc[1] > 0 && RENEWED(1)) || BEHIND(1)) && (!(rc[2] > 0 && RENEWED(2)) || BEHIND(2)) && (!(rc[3] > 0 && RENEWED(3)) || BEHIND(3)));   /* property: no_orphan */
}

inline loseReply(lost) {
    if
    :: lostReplies > 0 -> lostReplies--; lost = 1
    :: true -> lost = 0
    fi
}

/* owner o's place out of the queue (lrem + zrem) */
inline queueRemove(o) {
    si = 0;
    do
    :: si < fqn && fq[si] != o -> si++
    :: si < fqn && fq[si] == o ->
        do
        :: si < fqn - 1 -> fq[si] = fq[si + 1]; fl[si] = fl[si + 1]; si++
        :: else -> break
        od;
        fqn--; fq[fqn] = 0; fl[fqn] = 0;
        break
    :: else -> break
    od;
    si = 0
}

/* fair.lua "local dropped = redis.call('zrangebyscore', waiters, '-inf', now)": lapsed places leave the queue */
inline dropLapsed() {
    do
    :: fqn > 0 && fl[0] -> queueRemove(fq[0])
    :: fqn > 1 && !fl[0] && fl[1] -> queueRemove(fq[1])
    :: fqn > 2 && !fl[0] && !fl[1] && fl[2] -> queueRemove(fq[2])
    :: else -> break
    od
}

/* fair.lua "local function take()": count 1, a token from the counter, or the clock when it is missing */
inline take(o, cnt, tok) {
    rc[o] = 1; cnt = 1; clock++;
    if
    :: fence == 0 -> tok = clock                          /* fair.lua "token = clock[1] .. string.sub('00000' .. clock[2], -6)" */
    :: else -> tok = fence + 1                            /* fair.lua "local token = redis.call('incr', fence)" */
    fi;
    fence = tok; clock = (tok > clock -> tok : clock);
    assert(tok > lastTok);   /* property: tokens_rise */
    lastTok = tok
}

/* fair.lua's acquire with a place kept (every try of a wait queues); first = ARGV[6]. Sets ok, cnt, tok. */
inline fairAcquire(o, first, ok, cnt, tok) {
    dropLapsed();
    if
    :: rc[o] > 0 && first -> take(o, cnt, tok); ok = 1    /* fair.lua "if ARGV[6] == '1' then" */
    :: rc[o] > 0 && !first -> rc[o]++; cnt = rc[o]; tok = 0; ok = 1   /* fair.lua "local holdCount = redis.call('hincrby', hash, owner, 1)" */
    :: (HELD && rc[o] == 0) || (!HELD && fqn > 0 && fq[0] != o) ->   /* fair.lua "local function wait(ms)" */
        if
        :: QUEUED(o) -> si = 0;                           /* zadd refreshes the place where it is */
           do :: fq[si] == o -> fl[si] = 0; break :: else -> si++ od; si = 0
        :: else -> fq[fqn] = o; fl[fqn] = 0; fqn++        /* fair.lua "redis.call('rpush', queue, owner)" */
        fi;
        ok = 0; cnt = 0; tok = 0
    :: !HELD && (fqn == 0 || fq[0] == o) ->
        queueRemove(o);                                   /* fair.lua "redis.call('lpop', queue)" */
        take(o, cnt, tok); ok = 1
    fi;
    printf("O%d fair.lua acquire, first hold %d: %d (count %d, token %d)\n", o, first, ok, cnt, tok)
}

/* fair.lua's release: rem = 255 for -1, else the holds left (0: the hash and the counter deleted) */
inline fairRelease(o, rem) {
    dropLapsed();
    if
    :: rc[o] == 0 -> rem = 255
    :: rc[o] > 0 -> rc[o]--; rem = rc[o];
       if :: rem == 0 -> fence = 0 :: else fi             /* fair.lua "redis.call('del', hash, fence)" */
    fi;
    printf("O%d fair.lua release: %d\n", o, rem)
}

/* fair.lua's leave */
inline fairLeave(o) {
    clock++; dropLapsed(); queueRemove(o);
    printf("O%d fair.lua leave\n", o)
}

proctype Client(byte t) {
    byte o = OWNER(t);
    byte reentries = 0, ok, cnt, tok, rem;
    bool first, lost, final, done;
end_idle:
    do
    :: atomic { bel[t] == 0 && !done -> done = 1; goto lock }
    :: atomic { bel[t] > 0 && t == 0 && reentries < REENTRIES -> reentries++; goto lock }
    :: atomic { bel[t] > 0 -> goto unlock }
    od;
lock:
    atomic { busy[t] = 1; waiting[t] = 1; first = !(hk[o] && !hlost[o]) }   /* HeldLocks.java "first[i] = known == null || known.lost;" */
try:
    atomic {
        fairAcquire(o, first, ok, cnt, tok);
        if :: ok && bel[t] == 0 -> ended[t] = 0 :: else fi;
        loseReply(lost);
        check()
    }
    atomic {
        if
        :: lost -> lost = 0; printf("T%d lock(): LockRedisException (reply lost)\n", t); goto abandonLost
        :: !lost && ok ->                                 /* HeldLocks.java "if (holdCount == 1 || known == null) {" */
            if
            :: cnt == 1 || !hk[o] -> hk[o] = 1; hcnt[o] = 1; hlost[o] = 0; hw[o] = 1
            :: else -> hcnt[o]++                          /* HeldLocks.java "known.count++;" */
            fi;
            bel[t]++; busy[t] = 0; waiting[t] = 0; ok = 0; cnt = 0; tok = 0;
            printf("T%d lock() returns true (hold %d)\n", t, hcnt[o]);
            check();
            goto end_idle
        :: !lost && !ok -> skip
        fi
    }
    do                                                    /* blocked: try again, or give up */
    :: atomic { first = !(hk[o] && !hlost[o]); goto try }
    :: atomic { goto giveUp }
    od;
abandonLost:                                              /* LockAttempts.java "CompletableFuture<Void> left = unmarkQueued() || replyLost && lastTryQueued ? withdrawAsync() : OwnerTurns.NOW;" */
    atomic { fairLeave(o); check() }
    atomic {
        if
        :: first -> fairRelease(o, rem); rem = 0; check()   /* LockAttempts.java "return replyLost && lastTryFirstHold" */
        :: else
        fi;
        busy[t] = 0; waiting[t] = 0; ok = 0; cnt = 0; tok = 0;
        goto end_idle
    }
giveUp:
    atomic { fairLeave(o); busy[t] = 0; waiting[t] = 0; check(); goto end_idle }
unlock:
    atomic {
        busy[t] = 1; bel[t]--;
        if
        :: !hk[o] -> busy[t] = 0; goto end_idle
        :: hk[o] && hlost[o] -> hk[o] = 0; hw[o] = 0; busy[t] = 0; if :: bel[t] == 0 -> ended[t] = 0 :: else fi; goto end_idle
        :: else
        fi;
        final = (hcnt[o] <= 1);
        if :: final -> hw[o] = 0 :: else fi               /* unwatched before the release */
    }
    atomic {
#ifndef BROKEN_COUNTS_FROM_REDIS
        if :: final && rc[o] > 1 -> rc[o] = 1 :: else fi  /* fair.lua "local holdCount = ARGV[3] == '0' and 0 or redis.call('hincrby', hash, owner, -1)" */
#endif
        fairRelease(o, rem);
        loseReply(lost);
        check()
    }
    atomic {
        if
        :: lost -> if :: final -> hk[o] = 0; hw[o] = 0 :: else -> hcnt[o]-- fi
        :: !lost && rem == 255 -> hk[o] = 0; hw[o] = 0
        :: !lost && rem == 0 -> hk[o] = 0; hw[o] = 0
        :: !lost && rem > 0 && rem < 255 ->               /* HeldLocks.java "hold.count = remaining[i] == 0 || finalRelease ? remaining[i] : hold.count - 1;" */
            if :: final -> hcnt[o] = rem; hw[o] = 1; printf("T%d unlock(): Redis counts %d left, the hold is watched again\n", t, rem) :: else -> hcnt[o]-- fi
        fi;
        if :: bel[t] == 0 -> ended[t] = 0 :: else fi;
        busy[t] = 0; lost = 0; rem = 0; final = 0;
        check();
        goto end_idle
    }
}

proctype Time() {
end_time:
    do
    :: atomic { HELD && !RENEWED(ROWNER) -> printf("TIME lease of owner %d ends\n", ROWNER);
                if :: rc[1] > 0 -> ended[0] = 1 :: rc[2] > 0 -> ended[1] = 1 :: rc[3] > 0 -> ended[2] = 1 fi;
                rc[1] = 0; rc[2] = 0; rc[3] = 0; fence = 0; check() }
    :: atomic { HELD && RENEWED(ROWNER) && lateRenewals > 0 -> lateRenewals--; printf("TIME lease of owner %d ends, its renewal late\n", ROWNER);
                if :: rc[1] > 0 -> ended[0] = 1 :: rc[2] > 0 -> ended[1] = 1 :: rc[3] > 0 -> ended[2] = 1 fi;
                rc[1] = 0; rc[2] = 0; rc[3] = 0; fence = 0; check() }
    :: atomic { HELD && fence > 0 -> fence = 0 }          /* the counter's own lease (the first one) ran out */
    :: atomic { fqn > 0 && !fl[0] && !waiting[fq[0] - 1] -> fl[0] = 1 }
    :: atomic { fqn > 1 && !fl[1] && !waiting[fq[1] - 1] -> fl[1] = 1 }
    :: atomic { fqn > 2 && !fl[2] && !waiting[fq[2] - 1] -> fl[2] = 1 }
    /* the watchdog: a watched hold whose field is gone is lost */
    :: atomic { hk[1] && hw[1] && !hlost[1] && rc[1] == 0 -> hlost[1] = 1 }
    :: atomic { hk[2] && hw[2] && !hlost[2] && rc[2] == 0 -> hlost[2] = 1 }
    :: atomic { hk[3] && hw[3] && !hlost[3] && rc[3] == 0 -> hlost[3] = 1 }
    od
}

init {
    atomic { run Client(0); run Client(1); run Client(2); run Time() }
}
