/*
 * The plain reentrant lock with its wait queue, as SPIN checks it: every interleaving of the lock
 * scripts, the clients' wait state machines, lost and late messages, lost replies, lease ends, kills,
 * pauses and a closing Locker. See docs/reliability.md ("The protocol as a checked model") and
 * model/verify.sh, which runs it.
 *
 * One file models two protocols:
 *   default   the protocol of main at e06a861 (historic: it shows the defects the fixes mend; its
 *             scripts are not today's, so its trails are not replayed on Redis);
 *   -DFIXED   the fixed protocol: A) one acquisition per (owner, lock) in flight at a time,
 *             B) a hand-off is claimed by whoever test-and-clears the wait's queued flag first,
 *             C) a withdrawal releases the owner's hold only when its member had been popped by a
 *             hand-off; and the fixes this model showed A to C still need (-DONLY_ABC leaves them
 *             out, and fails): D) a try's successful settling claims the wait like B, E) the client
 *             counts its holds itself, its last release frees the owner's field whatever Redis counts,
 *             and an (owner, lock)'s releases are serialized with its acquisitions, F) a hand-off's
 *             token is max(released token + 1, TIME), G) a lost hold's nests stay counted: each of
 *             their unlocks reports LockLostException without touching Redis, H) see FIX_H below
 *             (-DCLOSE_B745336: the code at b745336, without H, which must fail). -DCODE_076F0CF: the code at
 *             076f0cf, which took a hold's count from Redis' replies instead of counting it (fix E), and fails.
 *             -DCODE_6825C2C: the code at 6825c2c, whose abandon left the place a lost re-entry try queued.
 *             I) a nested unlock whose reply was lost counts as spent (the client's count drops by one):
 *             -DCODE_4AC28F4, the code before it, kept the count, so a hold then found lost carried one
 *             unlock too many over to the owner's next first hold, which stayed taken (no_orphan).
 * and deliberately broken variants that must fail, each for its named property (model/verify.sh):
 *   -DBROKEN_RELEASE_ANY       release.lua frees the lock whoever holds it (no owner check)
 *   -DBROKEN_NO_CLAIM_LEASE    a hand-off sets no claim lease: a lock handed to a waiter that died stays taken
 *   -DBROKEN_WITHDRAW_KEEPS    a withdrawal sees its member queued but leaves it there
 *   -DBROKEN_ANY_WAIT_ID       a waiter takes a 'granted' message meant for any of its waits
 *   -DBROKEN_RELEASED_AS_GRANT a waiter takes a 'released' message for a hand-off
 *   -DBROKEN_RENEW_EXISTS      renew.lua checks that the key exists instead of its owner field
 *   -DBROKEN_ZERO_WAIT_KEEPS_LOST  a zero-wait try whose reply was lost does not give back what it took
 *   -DBROKEN_KEEP_DELETES      release.lua's kept release (holdAtLeast) deletes the key instead of keeping it
 *   -DBROKEN_GIVE_BACK_TAKES_TURN  the async cancel give-back waits for its acquisition's turn (e189b0e)
 *   -DBROKEN_GIVE_BACK_PAYS_NEST   the give-back pays an unlock owed to a lost hold it replaced, Redis untouched (before 5440447)
 *   -DBROKEN_ASK_UNCHECKED     with -DASKS: token.lua draws a token without checking that the owner still holds the lock
 *   -DBROKEN_ASK_KEEPS_LAST    with -DASKS: of two asks of one Hold racing, the last to settle overwrites the token the first kept
 * Steps that only some runs take (each kept out of the others' state space):
 *   -DZERO_WAIT_TRIES    thread 1's lock() calls are tries with no wait (tryLock with a zero wait)
 *   -DHOLD_AT_LEAST      thread 2's final unlock may keep the lock (unlock with holdAtLeast: the 'kept' field)
 *   -DASYNC_CANCELS=n    n cancellations of thread 0's async acquisition while its acquire.lua is in flight
 *   -DRELEASED_MESSAGES  a release that finds no live queue place publishes 'released', which wakes the waiters
 *   -DASKS=n             n asks for a hold's fencing token in a run (token.lua, by a holder whose Hold has none yet)
 * Every assertion carries a "property: <name>" tag, which verify.sh reads to tell which one failed.
 *
 * Scripts (lock-autoconfigure/src/main/resources/io/github/redislock/core/script/*.lua) are atomic steps
 * (Redis runs a script alone). A reference to code reads <file>:<line> "<text on that line>" (or
 * <file> "<text in it>"): ModelReferencesTest fails when the line no longer holds the text, and when
 * a reference has no quoted text. Client steps mirror LockAttempts.QueuedLock, LockWait (the one
 * wait state machine, blocking and async alike), HeldLocks and RedisLocker.close; each
 * client step is one atomic step, so every interleaving between a script and the settling of its
 * reply is explored. ModelConformanceTest replays the model's script steps on a real Redis.
 *
 * Abstractions:
 *   - Time is not modelled; instead the environment may end a lease whenever nothing renews it:
 *     the key's current owner has no watched hold in a running Locker (not killed, paused or closed).
 *     A watched hold of a running Locker is renewed (renew.lua) before it ends, except that
 *     -DLATE_RENEWALS=n lets n such leases end all the same (a renewal that came late or failed);
 *     the watchdog's renew.lua step then finds the owner field gone and marks the hold lost. A waiter
 *     that keeps waiting refreshes its queue place in time. Everything else may lapse at any moment.
 *   - A wait may time out (retry) at any moment: a 'released' message, the holder's lease end and
 *     the place's refresh only wake it earlier. So losing or delaying 'released' changes nothing a
 *     waiter does; it is published into the waiters' state only under -DBROKEN_RELEASED_AS_GRANT.
 *     'granted' messages are kept in the waiter's inbox until it reads them (delay), and may be lost.
 *   - Fencing tokens: the Redis clock is a counter that advances on each TIME a script reads for a
 *     token; a hand-off reads TIME too, so hand-offs never overtake the clock (the assumption
 *     release.lua states). Redis failover and clock steps are not modelled (docs/reliability.md treats
 *     them). Issue 33: acquire.lua's everyday path (a free lock, no queue place to give up) draws no
 *     token unless the caller asks for it now (DRAW_NOW: thread 0, an async caller); every other
 *     first hold, a restarted count and each hand-off draw one; a holder whose Hold has none may ask
 *     (token.lua, -DASKS=n), which draws only while Redis still has the owner's field, and the Hold
 *     keeps the answer (a re-entry keeps it, a new Hold starts without one).
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
/* Whose acquisitions draw their fencing token at once (acquire.lua's flag "draw the token now", which the
 * async and reactive lockers send, as a LockHandle of theirs never blocks to ask for it): thread 0's, the
 * async caller (the one -DASYNC_CANCELS cancels). Threads 1 and 2 lock through the blocking lockers: their
 * everyday acquisition draws none, their holder asks for it when it needs it (-DASKS). The variants of
 * older code (the default, -DONLY_ABC, -DCODE_*, -DCLOSE_B745336) draw at every first hold, as that code did. */
#if defined(FIXED) && !defined(ONLY_ABC) && !defined(CLOSE_B745336) && !defined(CODE_35F76D9) && !defined(CODE_6825C2C) \
    && !defined(CODE_076F0CF) && !defined(CODE_4AC28F4)
#define DRAW_NOW(t) ((t) == 0)
#else
#define DRAW_NOW(t) 1
#endif

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
#ifndef LATE_RENEWALS
#define LATE_RENEWALS 0      /* a watched lease ends all the same (its renewal came late) */
#endif
#ifndef CLOSES
#define CLOSES 1             /* Locker 0 closed (context shutdown) while its threads run */
#endif
#ifndef ASKS
#define ASKS 0               /* asks for a hold's fencing token (token.lua) in one run */
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
#ifndef CLOSE_B745336
#define FIX_H
#endif
#ifndef CODE_35F76D9
#define FIX_RETRY
#endif
#ifndef CODE_4AC28F4
#define FIX_I
#endif
#endif
/* FIX_H, the close-racing-try fix (issue 31; -DCLOSE_B745336 models the code before it, b745336):
 * a try marks its wait queued only after its reply settles, never before it is sent; a settle that
 * finds the Locker closed gives back what its try got (a withdrawal with the real member, which
 * removes a place the try re-added or releases a hold it took), and abandon withdraws with the
 * member (never with '') also after a lost reply: with the owner after a lost first hold, with owner
 * '' after a lost re-entry (LOST_REENTRY_LEAVES below). */
/* FIX_RETRY, the fix of code-retry-races-hand-off (-DCODE_35F76D9 models the code before it): a try
 * sent while the wait is queued may re-queue a member a hand-off popped, when the claim lease ended
 * and another owner took the lock before the waiter read its message; so a wait that tried while
 * queued takes its hand-off through claim.lua with its member, which takes that place out and checks
 * the owner still holds the lock (the hand-off is not taken on trust then, even with a watched lease);
 * and every try after the wait's first sends queuedBefore, so one that takes the lock takes out a
 * place an earlier try left (the code at 35f76d9 sent it only while the wait knew itself queued). */
/* Every try after the wait's first sends queuedBefore (the model's waits all queue): an earlier one may
 * have queued the member, also one whose reply was lost, which the wait never marked queued. */
#ifdef FIX_RETRY
#define NOTE_TRY(t) if :: qb -> tq[t] = 1 :: else fi   /* LockAttempts.java "triedWhileQueued |= queue && queuedBefore;" */
#define QB_FIRST(t) 0
#define QB_RETRY(t) 1
#else
#define NOTE_TRY(t) skip
#define QB_FIRST(t) queued[t]
#define QB_RETRY(t) queued[t]
#endif
/* A wait's first try sends acquire.lua without ARGV[4] first, which takes a free lock or marks a held one
 * ('waiters': flag 2) and queues nothing; only a blocked reply sends the call that queues, on the reply's
 * thread (LockAttempts.java "CompletableFuture.completedFuture(marked) : acquire(group, firstHolds, true))"):
 * both calls are the one try the wait settles; a wait for a key blocked lately sends the queuing call at once.
 * The historic variants always queue with the first call. */
#if defined(FIX_RETRY) && defined(FIX_H) && defined(FIX_I) && !defined(CODE_6825C2C) && !defined(CODE_076F0CF)
#define FIRST_MARKS 1
#else
#define FIRST_MARKS 0
#endif

/* ---------------------------------------------------------------- Redis state */

byte rc[NO + 1];             /* the lock hash: hold count per owner field (0 = no field) */
bool rw;                     /* its 'waiters' field */
byte q[QMAX];                /* wait queue (list), oldest first; member = thread * 8 + wait id */
bool ql[QMAX];               /* the member's deadline has passed (zset score <= now) */
byte qn;                     /* queue length */
byte clock;                  /* the Redis clock as TIME reads it (fencing tokens) */
byte lastTok;                /* highest fencing token handed out for the key */
#if ASKS > 0
/* Ghosts for tokens_rise when a token may be drawn after its hold began (an ask): which hold of the key
 * Redis has (advanced wherever a hold starts: a first hold, a restarted count, a hand-off), and the
 * latest hold a token was drawn for. Tokens are Redis clock readings, which rise at every read, so they
 * rise in the order of the holds exactly when, besides rising in the order drawn (handOut), no hold
 * draws after a later hold drew (drawn). */
byte rep;
byte lastEp;
byte asks = ASKS;
/* Two asks of one Hold may race (a token owner on two threads): each draws, then keeps the first answer
 * (Hold.java "return TOKEN.compareAndSet(this, 0, drawn) ? drawn : token;"). kEp: the hold the kept token
 * was drawn for; lastAns: the highest token an ask has answered. */
byte kEp[NO + 1];
byte lastAns;
#ifdef BROKEN_ASK_UNCHECKED
byte oep[NO + 1];            /* the latest hold owner o started in Redis (the hold an unchecked ask draws for) */
#define HOLD_STARTS(o) rep++; oep[o] = rep
#else
#define HOLD_STARTS(o) rep++
#endif
#define DRAWN drawn(rep)
#else
#define HOLD_STARTS(o) skip
#define DRAWN skip
#endif
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

#ifdef BROKEN_ANY_WAIT_ID
#define ANY_WAIT_ID true     /* broken: a waiter takes a 'granted' message for any of its waits */
#else
#define ANY_WAIT_ID false
#endif
#if defined(BROKEN_RELEASED_AS_GRANT) || defined(RELEASED_MESSAGES)
bool relMsg[NT];             /* a 'released' message the waiter has not read (broken: read as a grant) */
#define PUBLISH_RELEASED sm = 0; do :: sm < NT -> if :: waiting[sm] -> relMsg[sm] = 1 :: else fi; sm++ :: else -> break od; sm = 0
#else
#define PUBLISH_RELEASED skip  /* a 'released' message only wakes a waiter, which may retry at any moment anyway */
#endif

/* ---------------------------------------------------------------- client state */

bool dead[NL];               /* the process was killed */
bool paused[NL];             /* the process is paused (it neither runs nor renews) */
bool closing[NL];            /* the environment decided to close the Locker */
bool closed[NL];             /* RedisLocker.closed */
bool withdrawing[NT];        /* a closing Locker unmarked the thread's wait and its withdrawal is on its way */
/* HeldLocks: one Hold per (lock, owner); an owner lives in one Locker. */
bool hk[NO + 1];             /* a Hold is registered */
byte hcnt[NO + 1];           /* Hold.count */
byte htok[NO + 1];           /* Hold.token */
bool hlost[NO + 1];          /* Hold.lost (the watchdog found it gone) */
bool hw[NO + 1];             /* the watchdog renews it */
bool hq[NO + 1];             /* Hold.takenUncontended: taken by its wait's first try; its final release tries the short one */
byte hid[NO + 1];            /* identity of the Hold object (a new Hold replaces the old) */
byte hlc[NO + 1];            /* fix G: nests of a lost hold its owner has not unlocked yet */
bool acqBusy[NO + 1];        /* fix A: an acquisition of this owner is in flight */
/* per thread */
bool queued[NT];             /* QueuedLock.queuedWaits holds the thread's current wait */
byte wid[NT];                /* the current wait's id (waitIds), 1..7 */
bool waiting[NT];            /* inside lock(): between its start and its settling */
bool busy[NT];               /* inside lock() or unlock() */
byte bel[NT];                /* how many holds the thread believes it has (lock() returned true) */
bool ended[NT];              /* the lease behind the thread's belief ended (it is told LockLostException) */
byte gtok[NT];               /* inbox: a 'granted' message not yet read (token; 0 = none) */
byte gwid[NT];               /* ... and the wait id it names */
bool gend[NT];               /* ... the claim lease of that hand-off ended before it was read */
bool tq[NT];                 /* FIX_RETRY: a try went out while the wait was queued (triedWhileQueued) */

/* environment budgets */
byte lostReplies = LOST_REPLIES;
byte lostMessages = LOST_MESSAGES;
byte kills = KILLS;
byte pauses = PAUSES;
byte closes = CLOSES;
byte lateRenewals = LATE_RENEWALS;

/* scratch of the atomic steps; always 0 between steps */
byte si, sj, sm, sf;
byte pubM, pubT;             /* the 'granted' message a release.lua step published (member, token) */

/* ---------------------------------------------------------------- conformance traces */
/* Each step that runs a script or stands for time prints one line starting with '@' (spin -T): the
 * step, its arguments, '=', its reply, '|', then the Redis state after it: the hold count of owner
 * fields 1 to 3, the 'waiters' field, the queue length, and each queue place as member and whether its
 * deadline has passed. model/traces.sh collects these lines from random simulations and trails, and
 * ModelConformanceTest replays them through the real scripts on a real redis-server, comparing the
 * state after every step. (printf costs nothing in a verification run.) */
#define REDIS_STATE printf("| %d %d %d %d %d ", rc[1], rc[2], rc[3], rw, qn); \
                    printf("%d %d %d %d %d %d %d %d\n", q[0], ql[0], q[1], ql[1], q[2], ql[2], q[3], ql[3])
#ifdef HOLD_AT_LEAST
/* -DHOLD_AT_LEAST: the hash may hold a 'kept' field, a fourteenth number in the state */
bool rk;                     /* the lock hash's 'kept' field (its value, the former owner, is not modelled) */
bool keeping;                /* ghost: a kept release's holdAtLeast has not run out yet */
#undef KEY_EXISTS
#define KEY_EXISTS (rc[1] > 0 || rc[2] > 0 || rc[3] > 0 || rk)
#undef REDIS_STATE
#define REDIS_STATE printf("| %d %d %d %d %d ", rc[1], rc[2], rc[3], rw, qn); \
                    printf("%d %d %d %d %d %d %d %d %d\n", q[0], ql[0], q[1], ql[1], q[2], ql[2], q[3], ql[3], rk)
#endif

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

/* FIX_H's abandon after a lost reply of a re-entry try (no first hold), which asked for a place (every
 * try of a wait does): it takes out the place that try may have queued, through an owner no field can be,
 * and leaves the hold the client knows of. -DCODE_6825C2C: the code at 6825c2c, which withdrew nothing
 * then, and fails (the next release hands the lock to the ended wait). */
#if defined(FIX_H) && !defined(CODE_6825C2C)
#define LOST_REENTRY_LEAVES 1
#else
#define LOST_REENTRY_LEAVES 0
#endif

#ifdef FIX_H
#define MARK_BEFORE_SEND skip
#else
#define MARK_BEFORE_SEND if :: first -> queued[t] = 1 :: else fi   /* markQueued before the call */
#endif

/* Which properties a run checks: a constant in each assertion, so that no #ifdef inside an inline
 * shifts the line numbers SPIN reports (verify.sh names a violated property by its line's tag). */
#ifdef SKIP_OWNERS
#define CHECK_OWNERS 0
#else
#define CHECK_OWNERS 1
#endif
#ifdef SKIP_ORPHANS
#define CHECK_ORPHANS 0
#else
#define CHECK_ORPHANS 1
#endif
#ifdef SKIP_TOKENS
#define CHECK_TOKENS 0
#else
#define CHECK_TOKENS 1
#endif
#ifdef SKIP_WAITS
#define CHECK_WAITS 0
#else
#define CHECK_WAITS 1
#endif
#ifdef WAIT_PLACES
#define CHECK_WAIT_PLACES 1
#else
#define CHECK_WAIT_PLACES 0
#endif

/* A live queue place (deadline not passed) of member m. */
#define LIVE_PLACE(m) ((qn > 0 && q[0] == m && !ql[0]) || (qn > 1 && q[1] == m && !ql[1]) \
                       || (qn > 2 && q[2] == m && !ql[2]) || (qn > 3 && q[3] == m && !ql[3]))
/* When a wait of a closed Locker ends (with or without the lock), its place is gone, or the closing
 * Locker's withdrawal of it is on its way (the wait ends without waiting for it: abandon finds the wait
 * unmarked and withdraws nothing; that withdrawal takes the place out, or passes on a lock a release
 * handed to it meanwhile, fix C): a place left behind would be handed the lock until its deadline
 * passes, and the lock would stay taken for the claim lease. -DWAIT_PLACES checks this of every wait, which the code at 35f76d9 did not keep (a try
 * racing the wait's own hand-off, see FIX_RETRY; -DCODE_35F76D9 shows it fail). */
inline ENDED_WAIT_CHECK(t) {
    assert(!CHECK_WAITS || !closed[LOCKER(t)] || !LIVE_PLACE(MEMBER(t)) || withdrawing[t]);   /* property: closed_wait_leaves_no_place */
    assert(!CHECK_WAIT_PLACES || !LIVE_PLACE(MEMBER(t)));   /* property: ended_wait_leaves_no_place */
}
/* A give-back (a wait stopped as its try took the lock) releases in Redis what the try took: left
 * there, the lock would stay taken, renewed, with nobody behind it but the owner's next unlock. gbc
 * is the owner's count in Redis as the give-back began (0: nothing to give back); its release.lua
 * clears it when it lowered that count or found it gone (a hand-off that release makes may hand the
 * lock to a place of the same owner again, so the count after it proves nothing). */
#define GIVE_BACK_RAN(rem) if :: gbc > 0 && (rem == 255 || rem < gbc) -> gbc = 0 :: else fi
inline GIVEN_BACK_CHECK(o) {
    assert(gbc == 0);   /* property: give_back_releases */
}
/* A withdrawal (release.lua with the member) leaves the member no place. */
inline WITHDRAWN_CHECK(m) {
    assert(!CHECK_WAITS || !LIVE_PLACE(m));   /* property: withdrawal_removes_place */
}

/* Checked after every step that changes Redis or a client's belief. */
inline check() {
    /* at most one owner holds the lock in Redis */
    assert(!CHECK_OWNERS || (rc[1] > 0) + (rc[2] > 0) + (rc[3] > 0) <= 1);   /* property: one_owner */
    /* a client that believes it holds the lock while another owner does is one whose lease ended */
    assert(!CHECK_OWNERS || (BELIEF_OK(0) && BELIEF_OK(1) && BELIEF_OK(2)));   /* property: no_false_belief */
    /* no lock renewed with nobody behind it */
    assert(!CHECK_ORPHANS || (NO_ORPHAN(1) && NO_ORPHAN(2) && NO_ORPHAN(3)));   /* property: no_orphan */
}
/* fencing tokens handed out for the key only rise */
inline handOut(tok) {
    assert(!CHECK_TOKENS || tok > lastTok);   /* property: tokens_rise */
    lastTok = (tok > lastTok -> tok : lastTok)
}
#if ASKS > 0
/* a token drawn for hold ep: no hold draws after a later hold drew */
inline drawn(ep) {
    assert(!CHECK_TOKENS || ep >= lastEp);   /* property: tokens_rise */
    lastEp = ep
}
/* an ask answers token ans, drawn for hold ep: while that hold is Redis' current one, no earlier answer
 * was higher (an answer below one already given would have the holder's own writes rejected by a store
 * that saw the higher one); a hold that ended may be answered a lower token, as fencing needs */
inline answered(ans, ep) {
    assert(!CHECK_TOKENS || ep != rep || ans >= lastAns);   /* property: tokens_rise */
    lastAns = (ans > lastAns -> ans : lastAns)
}
#endif
/* a first hold's token drawn now: the Redis clock */
inline drawToken(tok) {
    clock++; tok = clock; handOut(tok); DRAWN
}

/* ---------------------------------------------------------------- scripts */

/* The key's lease ended: Redis expires the hash. Every belief resting on it ends with it. */
inline expireKey() {
    sm = 0;
    do
    :: sm < NT -> if :: rc[OWNER(sm)] > 0 -> ended[sm] = 1; gend[sm] = 1 :: else fi; sm++
    :: else -> break
    od;
    rc[1] = 0; rc[2] = 0; rc[3] = 0; rw = 0; sm = 0; HANDED(0);
    printf("@E = "); REDIS_STATE
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

#ifdef BROKEN_WITHDRAW_KEEPS
inline queueFind(m) {
    sf = (qn > 0 && q[0] == m) || (qn > 1 && q[1] == m) || (qn > 2 && q[2] == m) || (qn > 3 && q[3] == m)
}
#endif

/* acquire.lua:56 "if firstPttl == -2 and locks == 1 and not placeToGiveUp then": the everyday path, one free
 * lock and no queue place to give up: HSET (count 1, whatever the lock's flag says), PEXPIRE, and no TIME
 * unless the caller asks for the token now (draw). Sets ok, cnt, tok (0: no token drawn). */
inline everydayLua(o, draw, ok, cnt, tok) {
    rc[o] = 1; cnt = 1; HANDED(0);                        /* acquire.lua:57 "redis.call('hset', KEYS[1], owner, '1')" */
    HOLD_STARTS(o);
    if
    :: draw -> drawToken(tok)                             /* acquire.lua:59 "if string.sub(flags, 3, 3) ~= '1' then", else TIME */
    :: else -> tok = 0                                    /* acquire.lua:60 "return 1" */
    fi;
    ok = 1
}

/* acquire.lua with one lock and a queue place (ARGV[4] sent, flag 2 '1'): owner o, member m,
 * flag 1 = qb, draw = the flag "draw the token now", first = the lock's flag "no hold known".
 * Sets ok, cnt, tok (the reply; tok 0: no token drawn). */
inline acquireLua(o, m, qb, draw, first, ok, cnt, tok) {
    if
    :: KEY_EXISTS && rc[o] == 0 ->                        /* acquire.lua:78 "pttl ~= -2 and redis.call('hexists', hash, owner) == 0" */
        /* acquire.lua:83 "if redis.call('zadd', deadlines, deadline, member) == 1 then": rpush a new member */
        si = 0; sf = 0;
        do
        :: si < qn && q[si] == m -> ql[si] = 0; sf = 1; break   /* zadd returns 0: deadline refreshed */
        :: si < qn && q[si] != m -> si++
        :: else -> break
        od;
        if
        :: !sf -> assert(qn < QMAX); q[qn] = m; ql[qn] = 0; qn++   /* acquire.lua:84 "redis.call('rpush', queue, member)" */
        :: else
        fi;
        si = 0; sf = 0;
        rw = 1;                                           /* acquire.lua:93 "redis.call('hset', hash, 'waiters', 1)" */
        ok = 0; cnt = 0; tok = 0                          /* acquire.lua:95 "return {0, i, pttl}" */
    :: !KEY_EXISTS && !qb -> everydayLua(o, draw, ok, cnt, tok)
    :: else ->
        /* acquire.lua:99 "A waiter that leaves the queue for a free lock" */
        sf = 0;
        if
        :: qb -> queueRemove(m); sj = (qn > 0)            /* acquire.lua:101 "if placeToGiveUp then" */
        :: else -> sj = 0                                 /* without queuedBefore nobody looks: no 'waiters' field */
        fi;
        if
        :: first ->                                       /* acquire.lua:116 "restarted = redis.call('hset', hash, owner, 1) == 0" */
#ifdef FIXED
            /* fix A: and the key's remaining life is never shortened (pexpire max(pttl, lease));
               not visible here, as time is not modelled */
#endif
            rc[o] = 1; cnt = 1;
            if :: sj -> rw = 1 :: else fi
        :: else ->                                        /* acquire.lua:121 "holdCount = redis.call('hincrby', hash, owner, 1)" */
            rc[o]++; cnt = rc[o];
            if :: cnt == 1 && sj -> rw = 1 :: else fi
        fi;
        if
        :: cnt == 1 -> HOLD_STARTS(o); drawToken(tok)     /* acquire.lua:128 "micros = micros or clockMicros()" */
        :: else -> tok = 0                                /* acquire.lua:133 "elseif pttls[i] < lease then" */
        fi;
        sj = 0; sf = 0; HANDED(0);
        ok = 1
    fi
}

/* release.lua:66 "local function handOff(hash, channel, queue, deadlines, releasedToken)": hands the
 * freed lock to the first live member. */
inline handOff(rt) {
    clock++;                                              /* release.lua:67 "local clock = redis.call('time')" */
    do
    :: qn > 0 ->
        sm = q[0]; sf = ql[0];                            /* release.lua:70 "local member = redis.call('lpop', queue)" */
        si = 0;
        do
        :: si < qn - 1 -> q[si] = q[si + 1]; ql[si] = ql[si + 1]; si++
        :: else -> break
        od;
        qn--; q[qn] = 0; ql[qn] = 0; si = 0;              /* release.lua:73 "redis.call('zrem', deadlines, member)" */
        if
        :: !sf ->                                         /* release.lua:74 "if deadline and tonumber(deadline) > now then" */
            /* a closed Locker's waits get no hand-off once they ended; -DWAIT_PLACES: no ended wait does */
            assert(!CHECK_WAITS || (waiting[MT(sm)] && wid[MT(sm)] == MW(sm)) || !closed[LOCKER(MT(sm))] || dead[LOCKER(MT(sm))] || withdrawing[MT(sm)]);   /* property: no_hand_off_to_ended_wait */
            assert(!CHECK_WAIT_PLACES || (waiting[MT(sm)] && wid[MT(sm)] == MW(sm)) || dead[LOCKER(MT(sm))]);   /* property: no_hand_off_to_ended_wait */
            rc[OWNER(MT(sm))] = 1; HANDED(1);             /* release.lua:79 "redis.call('hset', hash, newOwner, 1, 'waiters', 1)" */
            rw = (qn > 0);
            /* release.lua:83 "redis.call('pexpire', hash, lease)": the claim lease (BROKEN_NO_CLAIM_LEASE: none) */
#ifdef FIX_F
            si = (rt + 1 > clock -> rt + 1 : clock);      /* release.lua:87 "math.max(releasedToken + 1, micros)" */
#else
            si = (rt > 0 -> rt + 1 : clock);              /* before fix F */
#endif
            printf("    hand-off to owner %d (thread %d wait %d), token %d\n", OWNER(MT(sm)), MT(sm), MW(sm), si);
            HOLD_STARTS(OWNER(MT(sm))); handOut(si); DRAWN;
            if                                            /* release.lua:92 "redis.call('publish', inbox, granted)" */
            :: lostMessages > 0 -> lostMessages--;
               printf("MSG granted:%d to thread %d wait %d LOST\n", si, MT(sm), MW(sm))
            :: true ->
               /* a grant for an earlier wait of the thread never hides one for its current wait */
               assert(!(gtok[MT(sm)] != 0 && gwid[MT(sm)] == wid[MT(sm)] && MW(sm) != wid[MT(sm)]));   /* property: grant_not_hidden */
               gtok[MT(sm)] = si; gwid[MT(sm)] = MW(sm); gend[MT(sm)] = 0;
               printf("MSG granted:%d to thread %d wait %d\n", si, MT(sm), MW(sm))
            fi;
            pubM = sm; pubT = si;
            si = 0; sm = 0; sf = 0;
            break
        :: else -> sm = 0; sf = 0                         /* release.lua:96 "member = redis.call('lpop', queue)": skip a member past its deadline */
        fi
    :: else -> PUBLISH_RELEASED; break                    /* release.lua:98 "redis.call(ARGV[3], channel, 'released')" */
    od
}

/* release.lua: owner o releases one hold (wm = 0), or withdraws member wm (ARGV[2]); rt = ARGV[4].
 * rem = the reply for the lock: 255 = -1 (not held), else the holds left. */
inline releaseLua(o, wm, rt, rem, final) {
    sf = 0;
    if
#ifdef BROKEN_WITHDRAW_KEEPS
    :: wm != 0 -> queueFind(wm)                           /* broken: sees the member, leaves it queued */
#else
    :: wm != 0 -> queueRemove(wm)                         /* release.lua:102 "if ARGV[2] ~= '' and redis.call('zrem', KEYS[4], ARGV[2]) == 1 then" */
#endif
    :: else
    fi;
#ifdef FIXED
    if
    :: wm != 0 && sf -> rem = 255                         /* fix C, release.lua:104 "return {-1}" */
    :: else ->
#endif
    sf = 0;
#ifdef BROKEN_RELEASE_ANY
    if :: KEY_EXISTS && rc[o] == 0 -> rc[1] = 0; rc[2] = 0; rc[3] = 0; rc[o] = 1 :: else fi;  /* no owner check */
#endif
#ifdef FIX_E
    if :: final && rc[o] > 1 -> rc[o] = 1 :: else fi;     /* fix E, release.lua:116 "local holdCount = restoreLease == '0' and 0 or" */
#endif
    if
    :: rc[o] == 0 -> rem = 255                            /* release.lua:110 "if not fields[1] then" */
    :: rc[o] > 1 -> rc[o]--; rem = rc[o]                  /* release.lua:118 "redis.call('hset', hash, owner, holdCount)" */
    :: rc[o] == 1 ->                                      /* release.lua:127 "redis.call('del', hash)" */
        rem = 0; sj = rw;
        rc[o] = 0; rw = 0; HANDED(0);                     
        if
        :: sj -> sj = 0; handOff(rt)                      /* release.lua:128 "if fields[2] then" */
        :: else
        fi
    fi;
#ifdef FIXED
    fi;
#endif
    printf("@R %d %d %d %d = %d %d %d ", o, wm, rt, final, rem, pubM, pubT); REDIS_STATE;
    pubM = 0; pubT = 0
}

/* release.lua:59 "if #KEYS == 1 then": the short release, the first call of the final release of a hold
 * its wait's first try took. rem = 255 (-1: not held), 254 (-2: a waiter's mark, nothing changed:
 * the client sends the full release, a call of its own) or 0 (deleted). */
inline shortReleaseLua(o, rem) {
    if
    :: rc[o] == 0 -> rem = 255                            /* release.lua:61 "return -1 - redis.call('hexists', KEYS[1], owner)", or :61 with no mark */
    :: rc[o] > 0 && rw -> rem = 254                       /* release.lua:61 "return -1 - redis.call('hexists', KEYS[1], owner)" */
    :: rc[o] > 0 && !rw -> rc[o] = 0; rem = 0; HANDED(0)  /* release.lua:63 "return redis.call('hdel', KEYS[1], owner) - 1": the hash's only field */
    fi;
    printf("@S %d = %d ", o, rem); REDIS_STATE
}

/* claim.lua: 1 when owner o still holds the lock (its lease then lengthened), else 0; with a member
 * m (0 = none), first takes m's place out of the queue. */
inline claimLua(o, m, ok) {
    if :: m != 0 -> queueRemove(m); sf = 0 :: else fi;   /* claim.lua:15 "if ARGV[3] and redis.call('zrem', KEYS[3], ARGV[3]) == 1 then" */
    ok = (rc[o] > 0);                                     /* claim.lua:18 "if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then" */
    if :: ok -> HANDED(0) :: else fi;
    if :: m != 0 -> printf("@C %d %d = %d ", o, m, ok) :: else -> printf("@C %d = %d ", o, ok) fi; REDIS_STATE
}

inline loseReply(lost) {
    if
    :: lostReplies > 0 -> lostReplies--; lost = 1
    :: true -> lost = 0
    fi
}

#if ASKS > 0
#ifdef BROKEN_ASK_UNCHECKED
#define ASK_UNCHECKED 1
#define ASK_HOLD(o) (rc[o] > 0 -> rep : oep[o])   /* broken: without the owner's field, its ended hold */
#else
#define ASK_UNCHECKED 0
#define ASK_HOLD(o) rep
#endif
/* token.lua: the owner's ask for its Hold's token; the client keeps it in a step of its own (askKept), so
 * two asks of one Hold may both draw before either keeps. Sets d (the drawn token; 0 for token.lua's -1:
 * the caller gets LockLostException), ep (the hold it was drawn for) and lost (the reply was lost after
 * the script ran: the caller gets LockRedisException, the Hold keeps nothing). Prints the drawn token and
 * whether the reply was lost; the checks come after the print, so that a trail's last step shows the ask
 * that fails them. */
inline tokenLua(o, d, ep, lost) {
    if
    :: rc[o] > 0 || ASK_UNCHECKED -> clock++; d = clock   /* token.lua "if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then" */
    :: else -> d = 0
    fi;
    loseReply(lost);
    printf("@F %d = %d %d ", o, d, lost); REDIS_STATE;
    printf("T  token.lua owner %d: token %d\n", o, d);
    if :: lost -> printf("T  ...reply LOST\n") :: else fi;
    if :: d != 0 -> handOut(d); ep = ASK_HOLD(o); drawn(ep) :: else -> ep = 0 fi
}
#endif

/* HeldLocks.java "void acquired(LockKeys keys, String owner, LockKind kind": the Hold the thread now counts on. */
inline holdsAcquired(o, t, cnt, tok, uq) {
    if
    :: cnt == 1 || !hk[o] ->
#ifdef FIX_G
        if :: hk[o] -> hlc[o] = hlc[o] + hcnt[o] :: else fi;   /* the replaced (lost) hold's nests stay counted */
#endif
        hk[o] = 1; hcnt[o] = cnt; htok[o] = tok; hlost[o] = 0; hw[o] = WATCHED(t); hq[o] = uq;
        hid[o] = (hid[o] + 1) % 8
    :: else ->
#if defined(FIX_E) && !defined(CODE_076F0CF)
        hcnt[o]++;                                        /* fix E: the client counts its holds itself: HeldLocks.java "known.count++;" */
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


/* ---------------------------------------------------------------- steps that only some runs take */
#ifdef ZERO_WAIT_TRIES
#define ZW(t) ((t) == 1)
#define ZERO_WAIT_BRANCH(t) if :: ZW(t) -> goto zeroTry :: else fi
#else
#define ZERO_WAIT_BRANCH(t) skip
#endif
/* acquire.lua without ARGV[4] (a try that does not queue): takes a free lock (or re-enters), else
 * queues nothing and, with flag 2 (marks: a wait's first try), writes the 'waiters' field; without
 * it (a try that does not wait) changes nothing. Sets ok, cnt, tok. */
inline tryLua(o, first, marks, draw, ok, cnt, tok) {
    if
    :: KEY_EXISTS && rc[o] == 0 ->                       /* acquire.lua:92 "if keepPlace > 0 or flag(2) then" */
        if :: marks -> rw = 1 :: else fi;
        ok = 0; cnt = 0; tok = 0
    :: !KEY_EXISTS -> everydayLua(o, draw, ok, cnt, tok)
    :: else ->
        if
        :: first -> rc[o] = 1; cnt = 1
        :: else -> rc[o]++; cnt = rc[o]
        fi;
        if
        :: cnt == 1 -> HOLD_STARTS(o); drawToken(tok)
        :: else -> tok = 0
        fi;
        HANDED(0);
        ok = 1
    fi
}

#ifdef ASYNC_CANCELS
bool cancelled[NT];          /* the caller cancelled thread t's async acquisition (RedisAsyncLocker) */
byte cancels = ASYNC_CANCELS;
#ifdef BROKEN_GIVE_BACK_TAKES_TURN
#define GIVE_BACK_TURN(o) REL_FREE(o)   /* broken (e189b0e): the give-back waits for the turn its own acquisition holds */
#else
#define GIVE_BACK_TURN(o) true          /* RedisLocker.java "return holds.giveBack(taken, settleOn);": no turn */
#endif
#endif

#ifdef HOLD_AT_LEAST
/* A final release of thread 2 may keep the lock (unlock(key, holdAtLeast) before holdAtLeast ran out:
 * HeldLocks.java "static long keepMillis(Hold hold, Duration holdAtLeast) {"); else it releases. */
#define RELEASE_OR_KEEP(o, t, token, rem, final) \
    if :: (t) == 2 && final -> keepLua(o, token, rem) :: else -> releaseLua(o, 0, token, rem, final) fi
#define MAY_KEEP(t) ((t) == 2)
/* release.lua with ARGV[6] > 0 for the owner's last hold as its client counts (fix E: '0' lease) */
inline keepLua(o, rt, rem) {
    if
    :: rc[o] == 0 -> rem = 255                            /* release.lua:110 "if not fields[1] then" */
    :: else ->
#ifdef BROKEN_KEEP_DELETES
        rc[o] = 0; rw = 0;                                /* broken: deleted at once, as by a plain release */
#else
        rc[o] = 0; rk = 1;                                /* release.lua:124 "redis.call('hset', hash, 'kept', owner)" */
#endif
        keeping = 1; sj = 0;
        rem = 0
    fi;
    printf("@K %d %d = %d ", o, rt, rem); REDIS_STATE
}
#else
#define RELEASE_OR_KEEP(o, t, token, rem, final) releaseLua(o, 0, token, rem, final)
#define MAY_KEEP(t) 0
#endif
/* HeldLocks.java "first.takenUncontended);": a final release of a hold its wait's first try took, which no
 * holdAtLeast keeps, sends the short release first (today's protocol only: the historic variants predate it). */
#if defined(FIX_RETRY) && defined(FIX_H) && defined(FIX_I) && !defined(CODE_6825C2C) && !defined(CODE_076F0CF)
#define SHORT_FIRST(o, t, final) (final && hq[o] && !MAY_KEEP(t))
#else
#define SHORT_FIRST(o, t, final) 0
#endif

proctype Client(byte t) {
    byte o = OWNER(t);
    byte L = LOCKER(t);
    byte cycles = 0, reentries = 0;
    byte ok, cnt, tok, rem, token, myHid, cm;
#if ASKS > 0
    byte askTok, askHid, askEp;   /* an ask in flight: the token its token.lua drew, the Hold it asked, the hold drawn for */
#endif
    bool first, qb, lost, firstTry, final, was, rq;
    bool mk;                 /* the try's call is the marking one (FIRST_MARKS): it asks for no place */
    bool wasShort, shortLost;   /* the last release call was the short one; a short one's reply was lost */
    byte gbc;                /* a give-back under way: the owner's count in Redis as it began (-DASYNC_CANCELS) */

    {
idle:
    do
    :: atomic { bel[t] == 0 && (cycles == CYCLES(t) || closed[L]) -> goto end_done }
    :: atomic { RUNNING(L) && bel[t] == 0 && cycles < CYCLES(t) -> cycles++; goto lock }
    :: atomic { RUNNING(L) && bel[t] > 0 && MAY_REENTER(t, reentries) -> reentries++; goto lock }
#if ASKS > 0
    /* the holder asks for its Hold's token (RedisLocker.java "return hold.getAsLong();"): a lost Hold answers
       LockLostException without asking (RedisLocker.java "if (hold.lost) {"), one with a token answers it, else
       token.lua (Hold.java "long drawn = token != 0 ? token : holds.commands.await(holds.commands.tokenAsync(keys, owner));");
       its -1 is LockLostException (Hold.java "if (drawn < 0) {"), the Hold unchanged; else the Hold keeps the
       first answer, in a step of its own (askKept). Reading the Hold's token and token.lua are one step here: an
       ask that read 0 before another ask kept its token, and drew after that, ends as one whose token.lua ran
       before that keep does (it draws a higher token, finds one kept and answers it) */
    :: atomic { RUNNING(L) && bel[t] > 0 && hk[o] && !hlost[o] && htok[o] == 0 && asks > 0 ->
                asks--; askHid = hid[o]; tokenLua(o, askTok, askEp, lost); check(); goto askKept }
#endif
    :: atomic { RUNNING(L) && bel[t] > 0 -> goto unlock }
    od;

    /* ---- lock(): BlockingWait.run with LockAttempts.QueuedLock */
lock:
    atomic {
        RUNNING(L) && ACQ_FREE(o);                        /* fix A: after the owner's acquisition in flight settled */
        busy[t] = 1;
        if
        :: closed[L] -> busy[t] = 0; printf("T%d lock(): IllegalStateException (closed)\n", t); goto idle  /* RedisLocker.requireOpen */
        :: else
        fi;
        ACQ_TAKE(o);
        waiting[t] = 1; wid[t]++; assert(wid[t] < 8);
        firstTry = 1;
        if :: FIRST_MARKS -> mk = 1 :: true -> mk = 0 fi;   /* a key blocked lately queues at once (LockAttempts.java "contendedUntil") */
        qb = QB_FIRST(t);                                 /* LockAttempts.java "boolean queuedBefore = placeSought;" */
        tq[t] = 0; NOTE_TRY(t);                           /* a new wait: a new QueuedLock */
        first = !(hk[o] && !hlost[o]);                    /* HeldLocks.java "boolean[] firstHolds(List<LockKeys> group, String owner)" */
        MARK_BEFORE_SEND;
        printf("T%d lock() wait %d, firstHold=%d\n", t, wid[t], first);
        ZERO_WAIT_BRANCH(t)
    }
try:
    atomic {
        RUNNING(L);
        if
        :: mk -> tryLua(o, first, 1, DRAW_NOW(t), ok, cnt, tok);
            printf("@M %d %d %d = %d %d %d ", o, first, DRAW_NOW(t), ok, cnt, tok)
        :: else -> acquireLua(o, MEMBER(t), qb, DRAW_NOW(t), first, ok, cnt, tok);
            printf("@A %d %d %d %d %d = %d %d %d ", o, MEMBER(t), qb, first, DRAW_NOW(t), ok, cnt, tok)
        fi;
        REDIS_STATE;
        if :: ok && bel[t] == 0 -> ended[t] = 0 :: else fi;
        printf("T%d  acquire.lua owner %d: %d (count %d, token %d)\n", t, o, ok, cnt, tok);
        loseReply(lost);
        if :: lost -> printf("T%d  ...reply LOST\n", t) :: else fi;
        check();
        if :: mk && !lost && !ok -> mk = 0; goto try :: else fi   /* blocked: the call that queues follows */
    }
#ifdef ASYNC_CANCELS
trySettles:                                               /* the try's reply is in flight: an async caller may cancel now */
    atomic {
        RUNNING(L);
        if
        :: cancelled[t] && !lost && ok -> goto cancelGiveBack
        :: cancelled[t] && lost -> cancelled[t] = 0; ok = 0; cnt = 0; tok = 0; goto abandon   /* the stopped wait ends */
        :: cancelled[t] && !lost && !ok -> cancelled[t] = 0; queued[t] = 1; goto abandon   /* settled (marked queued), then ended: withdrawn */
        :: else
        fi
    }
#endif
    atomic {
        RUNNING(L);
        if
        :: lost && firstTry -> goto abandon               /* thrown; the wait ends with abandon */
        :: lost && !firstTry -> ok = 0; cnt = 0; tok = 0; lost = 0; goto wait   /* ride the outage out */
        :: !lost && ok ->                                 /* LockAttempts.java "if (attempt.acquired()) {" */
#ifdef FIX_H
            if                                            /* the closing Locker unmarked the wait it had marked: */
            :: qb && !queued[t] ->                        /* it withdrew first, so this settle gives back */
                printf("T%d lock(): IllegalStateException (closed while taking; gives back)\n", t);
                ok = 0; cnt = 0; tok = 0;
                goto giveBack
            :: else
            fi;
#elif defined(FIX_D)
            if                                            /* fix D: the try's hold is claimed like a hand-off */
            :: first && !queued[t] ->                     /* the closing Locker claimed the wait: its withdrawal */
                printf("T%d lock(): IllegalStateException (acquisition claimed by the closing Locker)\n", t);
                ok = 0; cnt = 0; tok = 0;                 /* releases what this try took */
                goto endWait
            :: else
            fi;
#endif
            queued[t] = 0;
            holdsAcquired(o, t, cnt, tok, !tq[t]);        /* LockAttempts.java "leaseMillis, !triedWhileQueued);" */
            ENDED_WAIT_CHECK(t);
            bel[t]++; waiting[t] = 0; busy[t] = 0; ACQ_DONE(o);
            printf("T%d lock() returns true (hold %d, token %d)\n", t, cnt, tok);
            ok = 0; cnt = 0; tok = 0; first = 0; qb = 0; mk = 0;
            check();
            goto idle
#ifdef FIX_H
        :: !lost && !ok && closed[L] ->                   /* markQueued finds the Locker closed: the settle gives back */
            printf("T%d lock(): IllegalStateException (closed; cannot queue; gives back)\n", t);
            queued[t] = 0; goto giveBack
        :: !lost && !ok && !closed[L] -> queued[t] = 1; goto wait
#elif defined(FIXED)
        :: !lost && !ok && closed[L] ->                   /* b745336 settle: markQueued throws when closed ... */
            printf("T%d lock(): IllegalStateException (closed; cannot queue)\n", t);
            queued[t] = 0; goto abandon                   /* ... and abandon finds the wait unmarked */
        :: !lost && !ok && !closed[L] -> queued[t] = 1; goto wait
#else
        :: !lost && !ok -> queued[t] = 1; goto wait       /* settle: markQueued */
#endif
        fi
    }
wait:                                                     /* LockWait: woken, timed out, handed over */
    do
    :: atomic { RUNNING(L) && gtok[t] != 0 && (gwid[t] == wid[t] || ANY_WAIT_ID) ->
            token = gtok[t]; if :: bel[t] == 0 -> ended[t] = gend[t] :: else fi;
            gtok[t] = 0; gwid[t] = 0; gend[t] = 0;
            printf("T%d  reads granted:%d\n", t, token);
            goto handed }
    :: atomic { RUNNING(L) && gtok[t] != 0 && gwid[t] != wid[t] -> gtok[t] = 0; gwid[t] = 0; gend[t] = 0 }  /* not this wait's */
#ifdef RELEASED_MESSAGES
    :: atomic { RUNNING(L) && relMsg[t] -> relMsg[t] = 0; printf("T%d  woken by released\n", t); goto retry }   /* woken: it tries again (a free lock: release.lua "else, when waiters had blocked on the lock, 'released' on the lock's channel (free: a") */
#endif
#ifdef BROKEN_RELEASED_AS_GRANT
    :: atomic { RUNNING(L) && relMsg[t] -> relMsg[t] = 0; token = 0;
            printf("T%d  reads released as a grant\n", t); goto handed }
#endif
    :: atomic { RUNNING(L) -> goto retry }                /* woken, or the holder's lease / place refresh is due */
    :: atomic { RUNNING(L) && GIVE_UP -> printf("T%d  wait deadline\n", t); goto abandon }   
    od;
retry:
    atomic {
        RUNNING(L);
        if
        :: closed[L] -> printf("T%d  IllegalStateException (closed while waiting)\n", t); goto abandon  
        :: else
        fi;
        firstTry = 0;
        qb = QB_RETRY(t);
        NOTE_TRY(t);
        first = !(hk[o] && !hlost[o]);
        MARK_BEFORE_SEND;
        goto try
    }

    /* ---- LockAttempts.java "public HandOff handedOver(long token) {" */
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
        queued[t] = 0;                                    /* unmarkQueued(), its answer ignored */
#endif
        rq = tq[t]; tq[t] = 0;                            /* LockAttempts.java "String requeued = triedWhileQueued ? member : null;" */
        if
        :: WATCHED(t) && !rq -> goto confirmed            /* LockCommands.java "if (replicaSync == null && leaseMillis <= claimLeaseMillis && requeuedMember == null) {" */
        :: else
        fi
    }
    atomic {
        RUNNING(L);
        if :: rq -> cm = MEMBER(t) :: else -> cm = 0 fi;
        claimLua(o, cm, ok);                              /* LockCommands.java "LockScript.CLAIM, requeuedMember == null ? 1 : 3" */
        rq = 0; cm = 0;
        if :: ok && bel[t] == 0 -> ended[t] = 0 :: else fi;
        printf("T%d  claim.lua owner %d: %d\n", t, o, ok);
        loseReply(lost);
        check()
    }
    atomic {
        RUNNING(L);
        if
        :: lost -> ok = 0; token = 0; goto abandon        /* thrown out of the wait; finally abandons */
        :: !lost && !ok -> token = 0; goto wait   /* its claim lease ran out; waiting on */
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
        holdsAcquired(o, t, 1, token, 0);                 /* LockAttempts.java "holds.acquired(keys, owner, kind, 1, token, leaseMillis, false);" */
        if :: bel[t] == 0 -> GRANTED(t, 1) :: else fi;
        ENDED_WAIT_CHECK(t);
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

    /* ---- LockAttempts.java "public CompletableFuture<Void> abandon(boolean replyLost) {" */
abandon:
    atomic {
        RUNNING(L);
        was = queued[t]; queued[t] = 0;                   /* unmarkQueued */
#ifdef FIX_H
        if                                                /* LockAttempts.java "if (unmarkQueued() || replyLost && lastTryFirstHold) {" */
        :: !was && lost && !first && LOST_REENTRY_LEAVES && !mk -> goto withdrawPlace   /* a lost re-entry try (it asked for a place) */
        :: !was && !(lost && first) && !(lost && LOST_REENTRY_LEAVES && !mk) -> goto endWait   /* nothing queued, no first hold a lost reply may have taken */
        :: else -> was = 0                                /* withdraws with the member */
        fi
#elif defined(FIXED)
        if                                                /* b745336: a lost first-hold reply withdraws with '' */
        :: !was && lost && first -> was = 0; goto withdrawEmpty
        :: !was && !(lost && first) -> goto endWait
        :: else -> was = 0
        fi
#else
        if :: !was -> goto endWait :: else was = 0 fi
#endif
    }
giveBack:
    atomic {
        RUNNING(L);
        releaseLua(o, MEMBER(t), 0, rem, 0);                 /* withdraw: release.lua with the member */
        WITHDRAWN_CHECK(MEMBER(t));
        printf("T%d  withdraw (release.lua member %d): %d\n", t, MEMBER(t), rem);
        loseReply(lost);                                  /* a failure only logs (withdrawalFailed) */
        rem = 0; lost = 0;
        check()
    }
    goto endWait;
#ifdef FIX_H
withdrawPlace:                                            /* LockAttempts.java "return replyLost && lastTryQueued ? commands.withdrawAsync(keys, " */
    atomic {
        RUNNING(L);
        releaseLua(0, MEMBER(t), 0, rem, 0);              /* release.lua with the member and owner '' (0: no field): the place only */
        WITHDRAWN_CHECK(MEMBER(t));
        printf("T%d  withdraw (release.lua owner '' member %d): %d\n", t, MEMBER(t), rem);
        loseReply(lost);
        rem = 0; lost = 0;
        check()
    }
    goto endWait;
#endif
#if defined(FIXED) && !defined(FIX_H)
withdrawEmpty:
    atomic {
        RUNNING(L);
        releaseLua(o, 0, 0, rem, 0);                      /* release.lua with '': releases a hold, leaves a place */
        printf("T%d  withdraw (release.lua member ''): %d\n", t, rem);
        loseReply(lost);
        rem = 0; lost = 0;
        check()
    }
#endif
endWait:
    atomic {
        ENDED_WAIT_CHECK(t);
        waiting[t] = 0; busy[t] = 0; ACQ_DONE(o);
        ok = 0; cnt = 0; tok = 0; first = 0; qb = 0; firstTry = 0; was = 0; mk = 0;
        printf("T%d lock() fails\n", t);
        goto idle
    }

    /* ---- unlock(): RedisLocker.unlock, HeldLocks.release */
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
        :: !closed[L] && HLC_NONE(o) && hk[o] && hlost[o] ->   /* HeldLocks.java "private boolean beforeRelease(Hold hold, Failures failures) {" */
#ifdef FIX_G
            hlc[o] = hcnt[o] - 1;
#endif
            hk[o] = 0; hw[o] = 0;
            printf("T%d unlock(): LockLostException (watchdog found it gone)\n", t); goto unlocked
        :: else
        fi;
        myHid = hid[o]; token = htok[o]; final = (hcnt[o] <= 1);
        if :: final && hw[o] -> hw[o] = 0 :: else fi      /* unwatch before the release */
    }
releaseHold:
    atomic {
        RUNNING(L);
        if
        :: SHORT_FIRST(o, t, final) -> shortReleaseLua(o, rem); wasShort = 1
        :: else -> RELEASE_OR_KEEP(o, t, token, rem, final)   /* HeldLocks.releasePlain */
        fi;
        GIVE_BACK_RAN(rem);
        printf("T%d  release.lua owner %d token %d: %d\n", t, o, token, rem);
        loseReply(lost);
        check()
    }
settleRelease:
    atomic {
        RUNNING(L);
        if
        :: !lost && rem == 254 -> goto fullRelease        /* LockCommands.java "lost == null && left != -2" */
        :: lost && wasShort -> shortLost = 1; goto fullRelease   /* LockCommands.java "fullRelease(group, owner, restoreLeases, tokens, null).thenCompose(full -> lost == null" */
        /* a full release after a lost short one: its -1 proves nothing (the short one may have freed the lock), so the loss is reported */
        :: (lost && !wasShort) || (!lost && shortLost && rem == 255) ->   /* HeldLocks.java "forgetFinal(hold);" */
            if :: final && hid[o] == myHid -> hk[o] = 0; hw[o] = 0
#ifdef FIX_I
               :: !final && hid[o] == myHid -> hcnt[o]--      /* HeldLocks.java "if (hold.count-- <= 1) {": spent all the same */
#endif
               :: else fi;                                /* without fix I a non-final hold keeps its count */
            printf("T%d unlock(): LockRedisException\n", t)
        :: !lost && !shortLost && rem == 255 ->           /* HeldLocks.java "private void settle(List<Hold> group, long[] remaining, long keepMillis, Failures failures) {" */
            if :: hid[o] == myHid ->
#ifdef FIX_G
                  hlc[o] = hlc[o] + hcnt[o] - 1;          /* lostNestUnlocked; a give-back's owed nests stay (stillOwed) */
#endif
                  hk[o] = 0; hw[o] = 0
               :: else fi;
            printf("T%d unlock(): LockLostException\n", t)
        :: !lost && rem == 0 ->                           
            if :: hid[o] == myHid -> hk[o] = 0; hw[o] = 0 :: else fi;
            printf("T%d unlock() released\n", t)
        :: !lost && rem < 254 && rem > 0 ->               
            if
            :: hid[o] == myHid ->
#if defined(FIX_E) && !defined(CODE_076F0CF)
                hcnt[o]--;                                /* HeldLocks.java "hold.count = remaining[i] == 0 || finalRelease ? remaining[i] : hold.count - 1;" */
#else
                hcnt[o] = rem;
#endif
                if :: final && WATCHED(t) -> hw[o] = 1 :: else fi
            :: else
            fi;
            printf("T%d unlock(): %d holds left in Redis\n", t, rem)
        fi
    }
    goto unlocked;
fullRelease:                                              /* the short release found a waiter's mark: the full one now */
    atomic {
        RUNNING(L);
        releaseLua(o, 0, token, rem, final); wasShort = 0;
        GIVE_BACK_RAN(rem);
        printf("T%d  release.lua (full) owner %d token %d: %d\n", t, o, token, rem);
        loseReply(lost);
        check()
    }
    goto settleRelease;
unlocked:
    atomic {
        GIVEN_BACK_CHECK(o);
        REL_DONE(o);
        if :: bel[t] == 0 -> ended[t] = 0; GRANTED(t, 0) :: else fi;
        busy[t] = 0; lost = 0; rem = 0; token = 0; myHid = 0; final = 0; gbc = 0; wasShort = 0; shortLost = 0;
        check();
        goto idle
    }
#if ASKS > 0
    /* ---- the ask's reply settles on the Hold it asked (Hold.java "return TOKEN.compareAndSet(this, 0, drawn) ? drawn : token;"):
       the first token kept is every asker's answer. A Hold replaced meanwhile (a newer hold of the owner began) is
       not the owner's any more: the answer its caller gets belongs to an ended hold and is not checked. */
askKept:
    atomic {
        RUNNING(L);
        if
        :: lost -> printf("T%d fencingToken(): LockRedisException, the Hold keeps no token\n", t)
        :: !lost && askTok == 0 -> printf("T%d fencingToken(): LockLostException\n", t)
        :: !lost && askTok != 0 && hid[o] != askHid -> printf("T%d fencingToken(): %d, of a Hold replaced meanwhile\n", t, askTok)
        :: !lost && askTok != 0 && hid[o] == askHid ->
#ifdef BROKEN_ASK_KEEPS_LAST
            htok[o] = askTok; kEp[o] = askEp;             /* broken: the last answer overwrites the first */
#else
            if :: htok[o] == 0 -> htok[o] = askTok; kEp[o] = askEp :: else fi;
#endif
            printf("T%d fencingToken(): %d (drew %d)\n", t, htok[o], askTok);
            answered(htok[o], kEp[o])
        fi;
        lost = 0; askTok = 0; askHid = 0; askEp = 0;
        check();
        goto idle
    }
#endif
#ifdef ZERO_WAIT_TRIES
    /* ---- a try with no wait (tryLock with a zero wait): LockAttempts.java "firstHolds, queue ? keepPlace : 0, queue ? member() : null" */
zeroTry:
    atomic {
        RUNNING(L);
        tryLua(o, first, 0, DRAW_NOW(t), ok, cnt, tok);
        printf("@A %d 0 0 %d %d = %d %d %d ", o, first, DRAW_NOW(t), ok, cnt, tok); REDIS_STATE;
        if :: ok && bel[t] == 0 -> ended[t] = 0 :: else fi;
        printf("T%d  acquire.lua (no queue) owner %d: %d (count %d, token %d)\n", t, o, ok, cnt, tok);
        loseReply(lost);
        if :: lost -> printf("T%d  ...reply LOST\n", t) :: else fi;
        check()
    }
    atomic {
        RUNNING(L);
        if
#ifdef BROKEN_ZERO_WAIT_KEEPS_LOST
        :: lost -> goto zeroEnd                           /* broken: a lost reply's hold is nobody's, until its lease ends */
#else
        :: lost && first -> goto zeroGiveBack             /* abandon: a lost first hold's reply may have taken the lock */
        :: lost && !first -> goto zeroEnd                 /* a re-entry: the client's count governs (fix E) */
#endif
        :: !lost && closed[L] -> goto zeroGiveBack        /* LockAttempts.java "if (!fair && closing.getAsBoolean()) {" */
        :: !lost && !closed[L] && ok ->
            holdsAcquired(o, t, cnt, tok, !tq[t]);
            bel[t]++; waiting[t] = 0; busy[t] = 0; ACQ_DONE(o);
            printf("T%d tryLock() returns true (hold %d, token %d)\n", t, cnt, tok);
            ok = 0; cnt = 0; tok = 0; first = 0; qb = 0;
            check();
            goto idle
        :: !lost && !closed[L] && !ok -> goto zeroEnd     /* blocked: the try returns false, nothing queued */
        fi
    }
zeroGiveBack:
    atomic {
        RUNNING(L);
        releaseLua(o, MEMBER(t), 0, rem, 0);              /* withdraw with the member, never queued: releases what the try took */
        printf("T%d  give back (release.lua member %d): %d\n", t, MEMBER(t), rem);
        loseReply(lost);
        rem = 0; lost = 0;
        check()
    }
zeroEnd:
    atomic {
        /* what the try took is given back: the owner holds the lock only for its other thread */
        assert(!CHECK_OWNERS || rc[o] == 0 || (t == 1 && OWNER(0) == o && (bel[0] > 0 || busy[0])));   /* property: lost_try_given_back */
        lost = 0; ok = 0; cnt = 0; tok = 0;
        goto endWait
    }
#endif
#ifdef ASYNC_CANCELS
    /* ---- RedisLocker.java "CompletableFuture<Void> giveBack(LockKind kind, List<LockKeys> keys, String owner, Executor settleOn) {":
     * the async acquisition was cancelled while its acquire.lua was in flight; the reply granted the
     * lock, so the wait registers the hold and gives it back at once, without the turn its own
     * acquisition still holds (e189b0e: waiting for that turn deadlocked the give-back) */
cancelGiveBack:
    atomic {
        RUNNING(L) && GIVE_BACK_TURN(o);
        cancelled[t] = 0;
        queued[t] = 0;
        holdsAcquired(o, t, cnt, tok, !tq[t]);
        ENDED_WAIT_CHECK(t);
        waiting[t] = 0;
        ok = 0; cnt = 0; tok = 0; first = 0; qb = 0; firstTry = 0; was = 0; mk = 0;
        printf("T%d acquisition cancelled as it took the lock: gives it back\n", t);
        if                                                /* HeldLocks.java "private boolean beforeRelease(Hold hold, Failures failures) {" */
        :: hk[o] && hlost[o] ->                           /* it re-entered a hold found lost: lostNestUnlocked, Redis untouched */
            hlc[o] = hlc[o] + hcnt[o] - 1; hk[o] = 0; hw[o] = 0;   /* (the count it added ends with the lease nobody renews) */
            printf("T%d  give-back: LockLostException (the hold it re-entered was lost)\n", t); goto unlocked
        :: else
        fi;
        gbc = rc[o];
#ifdef BROKEN_GIVE_BACK_PAYS_NEST
        if                                                /* broken (the code before 5440447): the give-back went through */
        :: hlc[o] > 0 ->                                  /* unlock's beforeRelease and paid one of a replaced lost hold's nests */
            hlc[o]--; printf("T%d  give-back: LockLostException (a lost hold's nest), Redis untouched\n", t); goto unlocked
        :: else
        fi;
#endif
        /* HeldLocks.java "public CompletableFuture<Void> giveBack(List<Hold> taken, Executor settleOn) {": released in
           Redis whatever a replaced lost hold is owed; its owed nests (hlc) stay owed (HeldLocks.stillOwed) */
        myHid = hid[o]; token = htok[o]; final = (hcnt[o] <= 1);
        if :: final && hw[o] -> hw[o] = 0 :: else fi;
        goto releaseHold                                  /* the release of unlock(), ending with REL_DONE: the turn ends */
    }
#endif
end_done:
    skip
    } unless { dead[L] }
}

/* ---------------------------------------------------------------- LockerClose.java "void close() {" */
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
            was = queued[t]; queued[t] = 0; m = MEMBER(t);  /* LockAttempts.java "if (wait.unmarkQueued()) {" */
            withdrawing[t] = was
        }
        if
        :: was ->
            atomic {
                RUNNING(L);
                releaseLua(OWNER(t), m, 0, rem, 0);            /* withdraw */
                WITHDRAWN_CHECK(m);
                withdrawing[t] = 0;
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

/* renew.lua for owner o's watched hold, as the watchdog's batch sends it: the owner field gone, the hold is lost. */
inline renewLua(o) {
#ifdef BROKEN_RENEW_EXISTS
    sf = KEY_EXISTS;                                      /* broken: checks that the key exists, not the owner */
#else
    sf = (rc[o] > 0);                                     /* renew.lua:10 "local held = redis.pcall('hexists', KEYS[i], ARGV[i + 1])" */
#endif
    printf("@N %d = %d ", o, sf); REDIS_STATE;
    assert(!sf || rc[o] > 0);   /* property: renewal_confirms_owner */
    if :: !sf -> hlost[o] = 1; printf("T- watchdog: owner %d's hold lost\n", o) :: else fi;
    sf = 0
}


#if defined(HOLD_AT_LEAST) || defined(ASYNC_CANCELS)
/* The kept time running out, a kept lock refusing every owner, and the async callers' cancellations. */
proctype Extras() {
end_extras:
    do
#ifdef HOLD_AT_LEAST
    :: atomic { keeping -> keeping = 0; if :: rk -> rk = 0; printf("TIME kept lock ends\n"); expireKey() :: else fi; check() }
    :: atomic { keeping && (rc[1] > 0 || rc[2] > 0 || rc[3] > 0) ->
                assert(false)   /* property: kept_lock_refuses_owners */
              }
#endif
#ifdef ASYNC_CANCELS
    :: atomic { cancels > 0 && Client[1]@trySettles -> cancels--; cancelled[0] = 1; printf("T0 acquisition CANCELLED\n") }
#endif
    od
}
#define RUN_EXTRAS run Extras()
#else
#define RUN_EXTRAS skip
#endif
#ifdef HOLD_AT_LEAST
#undef HAS_LEASE
#define HAS_LEASE(o) (!rk)           /* a kept lock ends when its kept time does (Extras), no earlier */
#endif

proctype Time() {
end_time:
    do
    :: atomic { KEY_EXISTS && !RENEWED(ROWNER) && HAS_LEASE(ROWNER) -> printf("TIME lease of owner %d ends\n", ROWNER); expireKey(); check() }
    :: atomic { qn > 0 && !ql[0] && !REFRESHED(q[0]) -> ql[0] = 1; printf("@L 0 = "); REDIS_STATE }
    :: atomic { qn > 1 && !ql[1] && !REFRESHED(q[1]) -> ql[1] = 1; printf("@L 1 = "); REDIS_STATE }
    :: atomic { qn > 2 && !ql[2] && !REFRESHED(q[2]) -> ql[2] = 1; printf("@L 2 = "); REDIS_STATE }
    :: atomic { qn > 3 && !ql[3] && !REFRESHED(q[3]) -> ql[3] = 1; printf("@L 3 = "); REDIS_STATE }
    :: atomic { qn > 0 && ql[0] && (qn < 2 || ql[1]) && (qn < 3 || ql[2]) && (qn < 4 || ql[3]) ->
                qn = 0; q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 0; ql[0] = 0; ql[1] = 0; ql[2] = 0; ql[3] = 0;
                printf("@X = "); REDIS_STATE }  /* queue keys expire */
    /* a lease a running watchdog renews may still end: its renewal came late (a slow Redis, a stalled tick) */
    :: atomic { KEY_EXISTS && RENEWED(ROWNER) && lateRenewals > 0 -> lateRenewals--;
                printf("TIME lease of owner %d ends, its renewal late\n", ROWNER); expireKey(); check() }
    /* renew.lua through the watchdog (a renewal of a held key only lengthens it): a hold whose owner field is gone is lost */
    :: atomic { hk[1] && hw[1] && !hlost[1] && rc[1] == 0 && RUNNING(LOCKER_OF(1)) && !closed[LOCKER_OF(1)] -> renewLua(1) }
    :: atomic { hk[2] && hw[2] && !hlost[2] && rc[2] == 0 && RUNNING(LOCKER_OF(2)) && !closed[LOCKER_OF(2)] -> renewLua(2) }
    :: atomic { hk[3] && hw[3] && !hlost[3] && rc[3] == 0 && RUNNING(LOCKER_OF(3)) && !closed[LOCKER_OF(3)] -> renewLua(3) }
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
        printf("@T %d %d %d\n", OWNER(0), OWNER(1), OWNER(2));   /* the owner field of each thread */
        run Client(0); run Client(1); run Client(2);
        run Closer(0);
        run Time();
        run Chaos();
        RUN_EXTRAS
    }
}

/* ---------------------------------------------------------------- liveness (pan -a -f, with -DLIVENESS) */
/* (ltl takes no conditional expressions: lockers and owners spelled out; owner fields 1 and 3 live in
   Locker 0, owner field 2 in Locker 1) */
#define WAIT_ENDS(t, L) [] (waiting[t] -> <> (!waiting[t] || dead[L]))
ltl waiters_get_the_lock { WAIT_ENDS(0, 0) && WAIT_ENDS(1, 0) && WAIT_ENDS(2, 1) }
#define FREED(o, L) [] ((rc[o] > 0 && dead[L]) -> <> (rc[o] == 0))
ltl dead_owner_frees { FREED(1, 0) && FREED(2, 1) && FREED(3, 0) }
