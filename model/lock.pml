/*
 * The plain reentrant lock with its wait queue, as SPIN checks it: every interleaving of the lock
 * scripts, the clients' wait state machines, lost and late messages, lost replies, lease ends, kills,
 * pauses and a closing Locker. See docs/reliability.md ("The protocol as a checked model") and
 * model/verify.sh, which runs it.
 *
 * One file models two protocols:
 *   default   today's protocol (main at e06a861);
 *   -DFIXED   the fixed protocol: A) one acquisition per (owner, lock) in flight at a time,
 *             B) a hand-off is claimed by whoever test-and-clears the wait's queued flag first,
 *             C) a withdrawal releases the owner's hold only when its member had been popped by a
 *             hand-off; and the fixes this model showed A to C still need (-DONLY_ABC leaves them
 *             out, and fails): D) a try's successful settling claims the wait like B, E) the client
 *             counts its holds itself, its last release frees the owner's field whatever Redis counts,
 *             and an (owner, lock)'s releases are serialized with its acquisitions, F) a hand-off's
 *             token is max(released token + 1, TIME), G) a lost hold's nests stay counted: each of
 *             their unlocks reports LockLostException without touching Redis.
 * and deliberately broken variants that must fail:
 *   -DBROKEN_RELEASE_ANY   release.lua frees the lock whoever holds it (no owner check)
 *   -DBROKEN_NO_CLAIM_LEASE a hand-off sets no claim lease: a lock handed to a waiter that died stays taken
 *
 * Scripts (lock-autoconfigure/src/main/resources/io/github/redislock/core/*.lua) are atomic steps
 * (Redis runs a script alone); each says which lines it mirrors. Client steps mirror
 * LockAttempts.QueuedPlainLock, BlockingWait.run (AsyncWait drives the same attempt, step by step),
 * HeldLocks, HoldReleases and RedisLocker.close; each client step is one atomic step, so every
 * interleaving between a script and the settling of its reply is explored.
 *
 * Abstractions:
 *   - Time is not modelled; instead the environment may end a lease whenever nothing renews it:
 *     the key's current owner has no watched hold in a running Locker (not killed, paused or closed).
 *     A watched hold of a running Locker is renewed in time (renew.lua), and a waiter that keeps
 *     waiting refreshes its queue place in time. Everything else may lapse at any moment.
 *   - A wait may time out (retry) at any moment: a 'released' message, the holder's lease end and
 *     the place's refresh only wake it earlier. So losing or delaying 'released' changes nothing a
 *     waiter does; the model therefore publishes no 'released' at all. 'granted' messages are kept in
 *     the waiter's inbox until it reads them (delay), and may be lost.
 *   - Fencing tokens: the Redis clock is a counter that advances on each TIME a script reads; a
 *     hand-off reads TIME too, so hand-offs never overtake the clock (the assumption release.lua
 *     states). Redis failover and clock steps are not modelled (docs/reliability.md treats them).
 *   - renew-leases.lua serves read-write locks only; the plain lock renews with renew.lua.
 */

/* ---------------------------------------------------------------- configuration */

#define NT 3                 /* client threads */
#define NO 3                 /* owner fields: 1 = A, 2 = B, 3 = C (0 = none) */
#define NL 2                 /* Locker instances (one Redis client each) */
#define QMAX 4               /* wait queue capacity (asserted) */

/* Thread 0 and thread 1 live in Locker 0; thread 2 in Locker 1. Thread 1 shares thread 0's owner
 * field (one tryLockAs token used on two threads, or one LockHandle) unless -DDISTINCT_OWNERS. */
#ifdef DISTINCT_OWNERS
#define OWNER(t)   ((t) == 0 -> 1 : ((t) == 1 -> 3 : 2))
#else
#define OWNER(t)   ((t) == 2 -> 2 : 1)
#endif
#define LOCKER(t)  ((t) == 2 -> 1 : 0)
#define LOCKER_OF(o) ((o) == 2 -> 1 : 0)
/* Threads 0 and 1 take the lock with the watchdog lease (claim lease = lease: confirmHandOff needs no
 * Redis call); thread 2 with a fixed lease longer than the watchdog timeout (claim.lua confirms). */
#define WATCHED(t) ((t) != 2)

#ifndef CYCLES0
#define CYCLES0 1
#endif
#ifndef CYCLES1
#define CYCLES1 1
#endif
#ifndef CYCLES2
#define CYCLES2 1
#endif
#define CYCLES(t)  ((t) == 0 -> CYCLES0 : ((t) == 1 -> CYCLES1 : CYCLES2))
#ifndef REENTRIES
#define REENTRIES 1          /* re-entries of thread 0 (the others take the lock once per cycle) */
#endif
#ifndef REENTRIES_OTHERS
#define REENTRIES_OTHERS 0
#endif
#define MAY_REENTER(t, n) ((t) == 0 -> (n) < REENTRIES : (n) < REENTRIES_OTHERS)

/* Environment budgets (how many of each fault one run may contain). */
#ifndef LOST_REPLIES
#define LOST_REPLIES 1       /* a script ran, its reply never arrived (timeout) */
#endif
#ifndef LOST_MESSAGES
#define LOST_MESSAGES 1      /* a 'granted' message lost */
#endif
#ifndef KILLS
#define KILLS 1              /* a client process killed */
#endif
#ifndef PAUSES
#define PAUSES 1             /* a client paused (GC, VM) past its leases */
#endif
#ifndef CLOSES
#define CLOSES 1             /* Locker 0 closed (context shutdown) while its threads run */
#endif
#ifdef LIVENESS
#define GIVE_UP 0            /* liveness: a waiter keeps waiting (no wait deadline) */
#else
#define GIVE_UP 1            /* a wait may reach its deadline and give up */
#endif

#if defined(FIXED) && !defined(ONLY_ABC)
#define FIX_D
#define FIX_E
#define FIX_F
#define FIX_G
#endif

/* ---------------------------------------------------------------- Redis state */

byte rc[NO + 1];             /* the lock hash: hold count per owner field (0 = no field) */
bool rw;                     /* its 'waiters' field */
byte q[QMAX];                /* wait queue (list), oldest first; member = thread * 8 + wait id */
bool ql[QMAX];               /* the member's deadline has passed (zset score <= now) */
byte qn;                     /* queue length */
byte clock;                  /* the Redis clock as TIME reads it (fencing tokens) */
byte lastTok;                /* highest fencing token handed out for the key */
#ifdef BROKEN_NO_CLAIM_LEASE
bool rhand;                  /* the key was set by a hand-off, and nothing gave it a lease since */
#define HANDED(v) rhand = v
#else
#define HANDED(v) skip
#endif

#define MEMBER(t)  ((t) * 8 + wid[t])
#define MT(m)      ((m) / 8)
#define MW(m)      ((m) % 8)
#define KEY_EXISTS (rc[1] > 0 || rc[2] > 0 || rc[3] > 0)

/* ---------------------------------------------------------------- client state */

bool dead[NL];               /* the process was killed */
bool paused[NL];             /* the process is paused (it neither runs nor renews) */
bool closing[NL];            /* the environment decided to close the Locker */
bool closed[NL];             /* AbstractLocker.closed */
/* HeldLocks: one Hold per (lock, owner); an owner lives in one Locker. */
bool hk[NO + 1];             /* a Hold is registered */
byte hcnt[NO + 1];           /* Hold.count */
byte htok[NO + 1];           /* Hold.token */
bool hlost[NO + 1];          /* Hold.lost (the watchdog found it gone) */
bool hw[NO + 1];             /* the watchdog renews it */
byte hid[NO + 1];            /* identity of the Hold object (a new Hold replaces the old) */
byte hlc[NO + 1];            /* fix G: nests of a lost hold its owner has not unlocked yet */
bool acqBusy[NO + 1];        /* fix A: an acquisition of this owner is in flight */
/* per thread */
bool queued[NT];             /* QueuedWait.queued of the thread's current wait */
byte wid[NT];                /* the current wait's id (waitIds), 1..7 */
bool waiting[NT];            /* inside lock(): between its start and its settling */
bool busy[NT];               /* inside lock() or unlock() */
byte bel[NT];                /* how many holds the thread believes it has (lock() returned true) */
bool ended[NT];              /* the lease behind the thread's belief ended (it is told LockLostException) */
byte gtok[NT];               /* inbox: a 'granted' message not yet read (token; 0 = none) */
byte gwid[NT];               /* ... and the wait id it names */
bool gend[NT];               /* ... the claim lease of that hand-off ended before it was read */

/* environment budgets */
byte lostReplies = LOST_REPLIES;
byte lostMessages = LOST_MESSAGES;
byte kills = KILLS;
byte pauses = PAUSES;
byte closes = CLOSES;

/* scratch of the atomic steps; always 0 between steps */
byte si, sj, sm, sf;

/* ---------------------------------------------------------------- properties */

#define RUNNING(L) (!dead[L] && !paused[L])
/* The watchdog renews the key of owner o in time. */
#define RENEWED(o) (hk[o] && hw[o] && !hlost[o] && RUNNING(LOCKER_OF(o)) && !closed[LOCKER_OF(o)])
#define SOME_OTHER_OWNER(o) ((o != 1 && rc[1] > 0) || (o != 2 && rc[2] > 0) || (o != 3 && rc[3] > 0))
#ifdef ONLY_HANDED_BELIEFS
/* an observation filter for one trail: judge only beliefs that came from a hand-off */
bool viaGrant[NT];
#define BELIEF_OK(t) (bel[t] == 0 || ended[t] || !viaGrant[t] || !SOME_OTHER_OWNER(OWNER(t)))
#define GRANTED(t, v) viaGrant[t] = v
#else
#define BELIEF_OK(t) (bel[t] == 0 || ended[t] || !SOME_OTHER_OWNER(OWNER(t)))
#define GRANTED(t, v) skip
#endif
#define BEHIND(o) ((OWNER(0) == o && (bel[0] > 0 || busy[0])) || (OWNER(1) == o && (bel[1] > 0 || busy[1])) \
                   || (OWNER(2) == o && (bel[2] > 0 || busy[2])))
#define NO_ORPHAN(o) (!(rc[o] > 0 && RENEWED(o)) || BEHIND(o))

/* Checked after every step that changes Redis or a client's belief. */
inline check() {
    skip;
#ifndef SKIP_OWNERS
    /* at most one owner holds the lock in Redis */
    assert((rc[1] > 0) + (rc[2] > 0) + (rc[3] > 0) <= 1);   /* property: one_owner */
    /* a client that believes it holds the lock while another owner does is one whose lease ended */
    assert(BELIEF_OK(0) && BELIEF_OK(1) && BELIEF_OK(2));   /* property: no_false_belief */
#endif
#ifndef SKIP_ORPHANS
    /* no lock renewed with nobody behind it */
    assert(NO_ORPHAN(1) && NO_ORPHAN(2) && NO_ORPHAN(3));   /* property: no_orphan */
#endif
}
/* fencing tokens handed out for the key only rise */
inline handOut(tok) {
#ifndef SKIP_TOKENS
    assert(tok > lastTok);   /* property: tokens_rise */
#endif
    lastTok = (tok > lastTok -> tok : lastTok)
}

/* ---------------------------------------------------------------- scripts */

/* The key's lease ended: Redis expires the hash. Every belief resting on it ends with it. */
inline expireKey() {
    sm = 0;
    do
    :: sm < NT -> if :: rc[OWNER(sm)] > 0 -> ended[sm] = 1; gend[sm] = 1 :: else fi; sm++
    :: else -> break
    od;
    rc[1] = 0; rc[2] = 0; rc[3] = 0; rw = 0; sm = 0; HANDED(0)
}

/* zrem + lrem of member m; sf = 1 when it was there. */
inline queueRemove(m) {
    sf = 0; si = 0;
    do
    :: si < qn && q[si] != m -> si++
    :: si < qn && q[si] == m ->
        sf = 1;
        do
        :: si < qn - 1 -> q[si] = q[si + 1]; ql[si] = ql[si + 1]; si++
        :: else -> break
        od;
        qn--; q[qn] = 0; ql[qn] = 0;
        break
    :: else -> break
    od;
    si = 0
}

/* acquire.lua with one lock and a queue place (ARGV[3] > 0, ARGV[6] = '1'): owner o, member m,
 * ARGV[5] = qb, ARGV[7] = first. Sets ok, cnt, tok (the reply). */
inline acquireLua(o, m, qb, first, ok, cnt, tok) {
    if
    :: KEY_EXISTS && rc[o] == 0 ->                        /* 43: held by another owner */
        /* 45-56: zadd the member's deadline; rpush it when it is new */
        si = 0; sf = 0;
        do
        :: si < qn && q[si] == m -> ql[si] = 0; sf = 1; break   /* zadd returns 0: deadline refreshed */
        :: si < qn && q[si] != m -> si++
        :: else -> break
        od;
        if
        :: !sf -> assert(qn < QMAX); q[qn] = m; ql[qn] = 0; qn++   /* 49-51 */
        :: else
        fi;
        si = 0; sf = 0;
        rw = 1;                                           /* 58-60 */
        ok = 0; cnt = 0; tok = 0                          /* 61: {0, i, pttl} */
    :: else ->
        /* 64-71: a waiter that takes the lock leaves its place */
        sf = 0;
        if
        :: qb -> queueRemove(m)                           /* 67-69 */
        :: else
        fi;
        sj = (qn > 0);                                    /* 70: othersQueued */
        if
        :: first ->                                       /* 78-83: the count restarts at 1 */
#ifdef FIXED
            /* fix A: and the key's remaining life is never shortened (pexpire max(pttl, lease));
               not visible here, as time is not modelled */
#endif
            rc[o] = 1; cnt = 1;
            if :: sj -> rw = 1 :: else fi
        :: else ->                                        /* 84-89: hincrby */
            rc[o]++; cnt = rc[o];
            if :: cnt == 1 && sj -> rw = 1 :: else fi
        fi;
        if
        :: cnt == 1 -> clock++; tok = clock;              /* 91-97: TIME, pexpire lease */
           handOut(tok)
        :: else -> tok = 0                                /* 98-100 */
        fi;
        sj = 0; sf = 0; HANDED(0);
        ok = 1
    fi
}

/* release.lua handOff (35-61): hands the freed lock to the first live member, with token rt + 1. */
inline handOff(rt) {
    clock++;                                              /* 36-38: TIME */
    do
    :: qn > 0 ->
        sm = q[0]; sf = ql[0];                            /* 39, 41: lpop, zscore */
        si = 0;
        do
        :: si < qn - 1 -> q[si] = q[si + 1]; ql[si] = ql[si + 1]; si++
        :: else -> break
        od;
        qn--; q[qn] = 0; ql[qn] = 0; si = 0;              /* 42: zrem */
        if
        :: !sf ->                                         /* 43: deadline not passed */
            rc[OWNER(MT(sm))] = 1; HANDED(1);             /* 47-51 */
            rw = (qn > 0);
            /* 52: pexpire claim lease (BROKEN_NO_CLAIM_LEASE: none; the environment may then never end it) */
#ifdef FIX_F
            si = (rt + 1 > clock -> rt + 1 : clock);      /* fix F: max(released token + 1, TIME) */
#else
            si = (rt > 0 -> rt + 1 : clock);              /* 54 */
#endif
            printf("    hand-off to owner %d (thread %d wait %d), token %d\n", OWNER(MT(sm)), MT(sm), MW(sm), si);
            handOut(si);
            if                                            /* 55: publish 'granted' to the inbox */
            :: lostMessages > 0 -> lostMessages--;
               printf("MSG granted:%d to thread %d wait %d LOST\n", si, MT(sm), MW(sm))
            :: true ->
               /* a grant for an earlier wait of the thread never hides one for its current wait */
               assert(!(gtok[MT(sm)] != 0 && gwid[MT(sm)] == wid[MT(sm)] && MW(sm) != wid[MT(sm)]));   /* property: grant_not_hidden */
               gtok[MT(sm)] = si; gwid[MT(sm)] = MW(sm); gend[MT(sm)] = 0;
               printf("MSG granted:%d to thread %d wait %d\n", si, MT(sm), MW(sm))
            fi;
            si = 0; sm = 0; sf = 0;
            break
        :: else -> sm = 0; sf = 0                         /* 58: skip a member past its deadline */
        fi
    :: else -> break                                      /* 60: 'released' (not modelled, see header) */
    od
}

/* release.lua: owner o releases one hold (wm = 0), or withdraws member wm (ARGV[2]); rt = ARGV[4].
 * rem = the reply for the lock: 255 = -1 (not held), else the holds left. */
inline releaseLua(o, wm, rt, rem, final) {
    sf = 0;
    if
    :: wm != 0 -> queueRemove(wm)                         /* 63-65 */
    :: else
    fi;
#ifdef FIXED
    if
    :: wm != 0 && sf -> rem = 255                         /* fix C: still queued, so never handed: no hold to release */
    :: else ->
#endif
    sf = 0;
#ifdef BROKEN_RELEASE_ANY
    if :: KEY_EXISTS && rc[o] == 0 -> rc[1] = 0; rc[2] = 0; rc[3] = 0; rc[o] = 1 :: else fi;  /* no owner check */
#endif
#ifdef FIX_E
    if :: final && rc[o] > 1 -> rc[o] = 1 :: else fi;     /* fix E: the owner's last hold as the client counts: the field goes */
#endif
    if
    :: rc[o] == 0 -> rem = 255                            /* 70-71 */
    :: rc[o] > 1 -> rc[o]--; rem = rc[o]                  /* 73-78 */
    :: rc[o] == 1 ->                                      /* 79-84 */
        rem = 0; sj = rw;
        rc[o] = 0; rw = 0; HANDED(0);                     /* 80: del */
        if
        :: sj -> sj = 0; handOff(rt)                      /* 81-83 */
        :: else
        fi
    fi;
#ifdef FIXED
    fi
#endif
}

/* claim.lua: 1 when owner o still holds the lock (its lease then lengthened), else 0. */
inline claimLua(o, ok) {
    ok = (rc[o] > 0);                                     /* 9-13 */
    if :: ok -> HANDED(0) :: else fi
}

inline loseReply(lost) {
    if
    :: lostReplies > 0 -> lostReplies--; lost = 1
    :: true -> lost = 0
    fi
}

/* HeldLocks.acquired (390-414): the Hold the thread now counts on. */
inline holdsAcquired(o, t, cnt, tok) {
    if
    :: cnt == 1 || !hk[o] ->
#ifdef FIX_G
        if :: hk[o] -> hlc[o] = hlc[o] + hcnt[o] :: else fi;   /* the replaced (lost) hold's nests stay counted */
#endif
        hk[o] = 1; hcnt[o] = cnt; htok[o] = tok; hlost[o] = 0; hw[o] = WATCHED(t);
        hid[o] = (hid[o] + 1) % 8
    :: else ->
#ifdef FIX_E
        hcnt[o]++;                                        /* fix E: the client counts its holds itself */
#else
        hcnt[o] = cnt;
#endif
        if :: WATCHED(t) -> hw[o] = 1 :: else fi
    fi
}

/* ---------------------------------------------------------------- a client thread */

#ifdef FIX_G
#define HLC_NONE(o) (hlc[o] == 0)
#else
#define HLC_NONE(o) true
#endif
#ifdef FIX_E
#define REL_FREE(o) (!acqBusy[o])
#define REL_TAKE(o) acqBusy[o] = 1
#define REL_DONE(o) acqBusy[o] = 0
#else
#define REL_FREE(o) true
#define REL_TAKE(o) skip
#define REL_DONE(o) skip
#endif

#ifdef FIXED
#define ACQ_FREE(o) (!acqBusy[o])
#define ACQ_TAKE(o) acqBusy[o] = 1
#define ACQ_DONE(o) acqBusy[o] = 0
#else
#define ACQ_FREE(o) true
#define ACQ_TAKE(o) skip
#define ACQ_DONE(o) skip
#endif

proctype Client(byte t) {
    byte o = OWNER(t);
    byte L = LOCKER(t);
    byte cycles = 0, reentries = 0;
    byte ok, cnt, tok, rem, token, myHid;
    bool first, qb, lost, firstTry, final, was;

    {
idle:
    do
    :: atomic { bel[t] == 0 && (cycles == CYCLES(t) || closed[L]) -> goto end_done }
    :: atomic { RUNNING(L) && bel[t] == 0 && cycles < CYCLES(t) -> cycles++; goto lock }
    :: atomic { RUNNING(L) && bel[t] > 0 && MAY_REENTER(t, reentries) -> reentries++; goto lock }
    :: atomic { RUNNING(L) && bel[t] > 0 -> goto unlock }
    od;

    /* ---- lock(): BlockingWait.run with LockAttempts.QueuedPlainLock */
lock:
    atomic {
        RUNNING(L) && ACQ_FREE(o);                        /* fix A: after the owner's acquisition in flight settled */
        busy[t] = 1;
        if
        :: closed[L] -> busy[t] = 0; printf("T%d lock(): IllegalStateException (closed)\n", t); goto idle  /* AbstractLocker.requireOpen */
        :: else
        fi;
        ACQ_TAKE(o);
        waiting[t] = 1; wid[t]++; assert(wid[t] < 8);
        firstTry = 1;
        qb = queued[t];                                   /* tryOnce 103: queuedBefore */
        first = !(hk[o] && !hlost[o]);                    /* HeldLocks.firstHolds 474-481 */
        if :: first -> queued[t] = 1 :: else fi;          /* beforeTry 118-120: markQueued */
        printf("T%d lock() wait %d, firstHold=%d\n", t, wid[t], first)
    }
try:
    atomic {
        RUNNING(L);
        acquireLua(o, MEMBER(t), qb, first, ok, cnt, tok);
        if :: ok && bel[t] == 0 -> ended[t] = 0 :: else fi;
        printf("T%d  acquire.lua owner %d: %d (count %d, token %d)\n", t, o, ok, cnt, tok);
        loseReply(lost);
        if :: lost -> printf("T%d  ...reply LOST\n", t) :: else fi;
        check()
    }
    atomic {
        RUNNING(L);
        if
        :: lost && firstTry -> goto abandon               /* BlockingWait 531: thrown; finally abandons */
        :: lost && !firstTry -> ok = 0; cnt = 0; tok = 0; goto wait   /* 593-598: ride the outage out */
        :: !lost && ok ->                                 /* settle 126-129 */
#ifdef FIX_D
            if                                            /* fix D: the try's hold is claimed like a hand-off */
            :: first && !queued[t] ->                     /* the closing Locker claimed the wait: its withdrawal */
                printf("T%d lock(): IllegalStateException (acquisition claimed by the closing Locker)\n", t);
                ok = 0; cnt = 0; tok = 0;                 /* releases what this try took */
                goto endWait
            :: else
            fi;
#endif
            queued[t] = 0;
            holdsAcquired(o, t, cnt, tok);
            bel[t]++; waiting[t] = 0; busy[t] = 0; ACQ_DONE(o);
            printf("T%d lock() returns true (hold %d, token %d)\n", t, cnt, tok);
            ok = 0; cnt = 0; tok = 0; first = 0; qb = 0;
            check();
            goto idle
        :: !lost && !ok -> queued[t] = 1; goto wait       /* settle 131-133: markQueued */
        fi
    }
wait:                                                     /* BlockingWait 544-605 */
    do
    :: atomic { RUNNING(L) && gtok[t] != 0 && gwid[t] == wid[t] ->
            token = gtok[t]; if :: bel[t] == 0 -> ended[t] = gend[t] :: else fi;
            gtok[t] = 0; gwid[t] = 0; gend[t] = 0;
            printf("T%d  reads granted:%d\n", t, token);
            goto handed }
    :: atomic { RUNNING(L) && gtok[t] != 0 && gwid[t] != wid[t] -> gtok[t] = 0; gwid[t] = 0; gend[t] = 0 }  /* not this wait's */
    :: atomic { RUNNING(L) -> goto retry }                /* woken, or the holder's lease / place refresh is due */
    :: atomic { RUNNING(L) && GIVE_UP -> printf("T%d  wait deadline\n", t); goto abandon }   /* 564-568 */
    od;
retry:
    atomic {
        RUNNING(L);
        if
        :: closed[L] -> printf("T%d  IllegalStateException (closed while waiting)\n", t); goto abandon  /* 587-589 */
        :: else
        fi;
        firstTry = 0;
        qb = queued[t];
        first = !(hk[o] && !hlost[o]);
        if :: first -> queued[t] = 1 :: else fi;
        goto try
    }

    /* ---- QueuedPlainLock.handedOver 146-156 */
handed:
    atomic {
        RUNNING(L);
#ifdef FIXED
        if                                                /* fix B: the waiter claims it by clearing the flag */
        :: queued[t] -> queued[t] = 0
        :: else ->                                        /* the closing Locker claimed it: it passes the lock on */
            printf("T%d lock(): IllegalStateException (hand-off claimed by the closing Locker)\n", t);
            token = 0;
            goto endWait
        fi;
#else
        queued[t] = 0;                                    /* 147: unmarkQueued(), its answer ignored */
#endif
        if
        :: WATCHED(t) -> goto confirmed                   /* LockCommands.confirmHandOff 421-423: lease <= claim lease */
        :: else
        fi
    }
    atomic {
        RUNNING(L);
        claimLua(o, ok);                                  /* confirmHandOff 424-426 */
        if :: ok && bel[t] == 0 -> ended[t] = 0 :: else fi;
        printf("T%d  claim.lua owner %d: %d\n", t, o, ok);
        loseReply(lost);
        check()
    }
    atomic {
        RUNNING(L);
        if
        :: lost -> ok = 0; token = 0; goto abandon        /* thrown out of the wait; finally abandons */
        :: !lost && !ok -> token = 0; goto wait   /* 150-152: its claim lease ran out; waiting on */
        :: !lost && ok -> ok = 0
        fi
    }
confirmed:
    atomic {
        RUNNING(L);
#ifdef FIXED
        if
        :: closed[L] -> goto closedRelease                /* fix B: claimed, but the Locker closed meanwhile */
        :: else
        fi;
#endif
        holdsAcquired(o, t, 1, token);                    /* 154 */
        if :: bel[t] == 0 -> GRANTED(t, 1) :: else fi;
        bel[t]++; waiting[t] = 0; busy[t] = 0; ACQ_DONE(o);
        printf("T%d lock() returns true (handed over, token %d)\n", t, token);
        token = 0; first = 0; qb = 0;
        check();
        goto idle
    }
#ifdef FIXED
closedRelease:
    atomic {
        RUNNING(L);
        releaseLua(o, 0, token, rem, 1);
        printf("T%d  release.lua (closed after the claim): %d\n", t, rem);
        token = 0; rem = 0;
        check();
        printf("T%d lock(): IllegalStateException (closed; the hand-off released)\n", t);
        goto endWait
    }
#endif

    /* ---- QueuedWait.abandon 204-208 */
abandon:
    atomic {
        RUNNING(L);
        was = queued[t]; queued[t] = 0;                   /* unmarkQueued */
        if :: !was -> goto endWait :: else was = 0 fi
    }
    atomic {
        RUNNING(L);
        releaseLua(o, MEMBER(t), 0, rem, 0);                 /* withdraw: release.lua with the member */
        printf("T%d  withdraw (release.lua member %d): %d\n", t, MEMBER(t), rem);
        loseReply(lost);                                  /* a failure only logs (withdrawalFailed) */
        rem = 0; lost = 0;
        check()
    }
endWait:
    atomic {
        waiting[t] = 0; busy[t] = 0; ACQ_DONE(o);
        ok = 0; cnt = 0; tok = 0; first = 0; qb = 0; firstTry = 0; was = 0;
        printf("T%d lock() fails\n", t);
        goto idle
    }

    /* ---- unlock(): RedisLocker.unlock, HoldReleases.release */
unlock:
    atomic {
        RUNNING(L) && REL_FREE(o);                        /* fix E: after the owner's acquisition or release in flight */
        REL_TAKE(o);
        busy[t] = 1;
        bel[t]--;                                         /* the caller has left its critical section */
        if
        :: closed[L] -> printf("T%d unlock(): IllegalStateException (closed)\n", t); goto unlocked  /* requireOpen */
#ifdef FIX_G
        :: !closed[L] && hlc[o] > 0 ->                    /* fix G: a nest of a lost hold: told, Redis untouched */
            hlc[o]--; printf("T%d unlock(): LockLostException (a lost hold's nest)\n", t); goto unlocked
#endif
        :: !closed[L] && HLC_NONE(o) && !hk[o] -> printf("T%d unlock(): IllegalMonitorStateException\n", t); goto unlocked
        :: !closed[L] && HLC_NONE(o) && hk[o] && hlost[o] ->   /* beforeRelease 100-104 */
#ifdef FIX_G
            hlc[o] = hcnt[o] - 1;
#endif
            hk[o] = 0; hw[o] = 0;
            printf("T%d unlock(): LockLostException (watchdog found it gone)\n", t); goto unlocked
        :: else
        fi;
        myHid = hid[o]; token = htok[o]; final = (hcnt[o] <= 1);
        if :: final && hw[o] -> hw[o] = 0 :: else fi      /* 105-107: unwatch before the release */
    }
    atomic {
        RUNNING(L);
        releaseLua(o, 0, token, rem, final);              /* HoldReleases.releasePlain */
        printf("T%d  release.lua owner %d token %d: %d\n", t, o, token, rem);
        loseReply(lost);
        check()
    }
    atomic {
        RUNNING(L);
        if
        :: lost ->                                        /* failed 124-131 */
            if :: final && hid[o] == myHid -> hk[o] = 0; hw[o] = 0 :: else fi;
#ifdef FIX_E
            if :: !final && hid[o] == myHid -> hcnt[o]-- :: else fi;
#endif
            printf("T%d unlock(): LockRedisException\n", t)
        :: !lost && rem == 255 ->                         /* settle 138-144 */
            if :: hid[o] == myHid ->
#ifdef FIX_G
                  hlc[o] = hcnt[o] - 1;
#endif
                  hk[o] = 0; hw[o] = 0
               :: else fi;
            printf("T%d unlock(): LockLostException\n", t)
        :: !lost && rem == 0 ->                           /* 147-153 */
            if :: hid[o] == myHid -> hk[o] = 0; hw[o] = 0 :: else fi;
            printf("T%d unlock() released\n", t)
        :: !lost && rem != 255 && rem > 0 ->              /* 146, 154-156 */
            if
            :: hid[o] == myHid ->
#ifdef FIX_E
                hcnt[o]--;
#else
                hcnt[o] = rem;
#endif
                if :: final && WATCHED(t) -> hw[o] = 1 :: else fi
            :: else
            fi;
            printf("T%d unlock(): %d holds left in Redis\n", t, rem)
        fi
    }
unlocked:
    atomic {
        REL_DONE(o);
        if :: bel[t] == 0 -> ended[t] = 0; GRANTED(t, 0) :: else fi;
        busy[t] = 0; lost = 0; rem = 0; token = 0; myHid = 0; final = 0;
        check();
        goto idle
    }
end_done:
    skip
    } unless { dead[L] }
}

/* ---------------------------------------------------------------- RedisLocker.close 224-233 */
proctype Closer(byte L) {
    byte t, m, rem;
    bool was, lost;
end_idle:
    {
    atomic { closing[L] && RUNNING(L) -> closed[L] = 1; printf("L%d close()\n", L) }
    t = 0;
    do
    :: t < NT && LOCKER(t) != L -> t++
    :: t < NT && LOCKER(t) == L ->
        atomic {
            RUNNING(L);
            was = queued[t]; queued[t] = 0; m = MEMBER(t)   /* abandon: unmarkQueued */
        }
        if
        :: was ->
            atomic {
                RUNNING(L);
                releaseLua(OWNER(t), m, 0, rem, 0);            /* withdraw */
                printf("L%d  withdraws thread %d's wait (release.lua member %d): %d\n", L, t, m, rem);
                loseReply(lost);
                rem = 0; lost = 0; was = 0; m = 0;
                check()
            }
        :: else -> m = 0
        fi;
        t++
    :: t == NT -> break
    od;
    atomic {
        RUNNING(L);                                       /* holds.closeAll: no more renewals */
        t = 0;
        do
        :: t < NT -> if :: LOCKER(t) == L -> hk[OWNER(t)] = 0; hw[OWNER(t)] = 0 :: else fi; t++
        :: else -> break
        od;
        t = 0;
        check()
    }
    } unless { dead[L] }
}

/* ---------------------------------------------------------------- time: lease ends, place lapses, watchdog */
#define REFRESHED(m) (waiting[MT(m)] && wid[MT(m)] == MW(m) && RUNNING(LOCKER(MT(m))))
#define ROWNER (rc[1] > 0 -> 1 : (rc[2] > 0 -> 2 : (rc[3] > 0 -> 3 : 0)))

#ifdef BROKEN_NO_CLAIM_LEASE
#define HAS_LEASE(o) (!rhand || hk[o])  /* a handed-over key has no lease until its owner takes it up */
#else
#define HAS_LEASE(o) true
#endif

proctype Time() {
end_time:
    do
    :: atomic { KEY_EXISTS && !RENEWED(ROWNER) && HAS_LEASE(ROWNER) -> printf("TIME lease of owner %d ends\n", ROWNER); expireKey(); check() }
    :: atomic { qn > 0 && !ql[0] && !REFRESHED(q[0]) -> ql[0] = 1 }
    :: atomic { qn > 1 && !ql[1] && !REFRESHED(q[1]) -> ql[1] = 1 }
    :: atomic { qn > 2 && !ql[2] && !REFRESHED(q[2]) -> ql[2] = 1 }
    :: atomic { qn > 3 && !ql[3] && !REFRESHED(q[3]) -> ql[3] = 1 }
    :: atomic { qn > 0 && ql[0] && (qn < 2 || ql[1]) && (qn < 3 || ql[2]) && (qn < 4 || ql[3]) ->
                qn = 0; q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 0; ql[0] = 0; ql[1] = 0; ql[2] = 0; ql[3] = 0 }  /* queue keys expire */
    /* renew.lua 9-18 through the watchdog: a hold whose owner field is gone is lost */
    :: atomic { hk[1] && hw[1] && !hlost[1] && rc[1] == 0 && RUNNING(LOCKER_OF(1)) && !closed[LOCKER_OF(1)] -> hlost[1] = 1 }
    :: atomic { hk[2] && hw[2] && !hlost[2] && rc[2] == 0 && RUNNING(LOCKER_OF(2)) && !closed[LOCKER_OF(2)] -> hlost[2] = 1 }
    :: atomic { hk[3] && hw[3] && !hlost[3] && rc[3] == 0 && RUNNING(LOCKER_OF(3)) && !closed[LOCKER_OF(3)] -> hlost[3] = 1 }
    od
}

/* ---------------------------------------------------------------- the environment's faults */
proctype Chaos() {
end_chaos:
    do
    :: atomic { kills > 0 -> kills--; if :: dead[0] = 1; printf("KILL L0\n") :: dead[1] = 1; printf("KILL L1\n") fi; check() }
    :: atomic { pauses > 0 -> pauses--; if :: paused[0] = 1; printf("PAUSE L0\n") :: paused[1] = 1; printf("PAUSE L1\n") fi }
    :: atomic { paused[0] -> paused[0] = 0; printf("RESUME L0\n") }
    :: atomic { paused[1] -> paused[1] = 0; printf("RESUME L1\n") }
    :: atomic { closes > 0 -> closes--; closing[0] = 1 }
    od
}

init {
    atomic {
        run Client(0); run Client(1); run Client(2);
        run Closer(0);
        run Time();
        run Chaos()
    }
}

/* ---------------------------------------------------------------- liveness (pan -a -f, with -DLIVENESS) */
/* (ltl takes no conditional expressions: lockers and owners spelled out; owner fields 1 and 3 live in
   Locker 0, owner field 2 in Locker 1) */
#define WAIT_ENDS(t, L) [] (waiting[t] -> <> (!waiting[t] || dead[L]))
ltl waiters_get_the_lock { WAIT_ENDS(0, 0) && WAIT_ENDS(1, 0) && WAIT_ENDS(2, 1) }
#define FREED(o, L) [] ((rc[o] > 0 && dead[L]) -> <> (rc[o] == 0))
ltl dead_owner_frees { FREED(1, 0) && FREED(2, 1) && FREED(3, 0) }
