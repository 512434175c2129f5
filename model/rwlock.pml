/*
 * The read-write lock (read-write.lua) as SPIN checks it: three owners in two instances, each taking
 * read or write holds (a writer may also read, nested), with lost replies, lease ends (of a lock nobody
 * renews, and -DLATE_RENEWALS of one the watchdog renews), a killed and a paused instance, and with -DREENTRIES=n
 * n re-entries of a hold's own mode per thread (a reader reads again, a writer writes again). Run by
 * model/verify.sh; see docs/reliability.md ("The protocol as a checked model").
 *
 * The script is one atomic step per call. Its bookkeeping is abstracted to what decides who holds:
 * per owner its read and write counts (fields '<owner>:r', '<owner>:w'), the 'writer' field, whether
 * the owner has a lease (its member of the leases sorted set) and its token ('<owner>:t'); the 'mode'
 * field and the expiries follow from them (read-write.lua's settle()). An owner whose lease ended is
 * gone with all its holds, as read-write.lua's first loop removes it on the next call.
 *
 * A reference reads <file>:<line> "<text on that line>", checked by ModelReferencesTest.
 *
 * Conformance traces (spin -T): each script call and each lease end prints one line starting with '@':
 *   @W <owner> <write> <ARGV[4]> <ARGV[5]> = <ok> <holds> <token> | <state>   an acquisition
 *   @U <owner> <write> <ARGV[4]> = <reply> | <state>                           a release (255 = -1)
 *   @E <owner> = | <state>                                                     the owner's lease ended
 * where <state> is, per owner 1 to 3, its read count, write count and whether it has a lease, then the
 * 'writer' field (0 = none). model/traces.sh collects them; ModelConformanceTest replays them through
 * read-write.lua on a real redis-server, comparing the owners Redis still counts after every step.
 *
 * Deliberately broken variants that must fail (model/verify.sh):
 *   -DBROKEN_RW_READ_BESIDE_WRITER  a read ignores another owner's write hold
 *   -DBROKEN_RW_WRITE_BESIDE_READERS a write ignores the readers
 *   -DBROKEN_RW_COUNTS_FROM_REDIS   a release counts down what Redis counts, ignoring ARGV[4] (the owner's last hold
 *                                   of that mode as its client counts): the code before the fair and read-write
 *                                   release's fix, whose last unlock left a lost re-entry's hold counted
 */

#define NT 3                 /* client threads; thread t is owner t + 1 */
#define LOCKER(t) ((t) == 2 -> 1 : 0)
#ifndef CYCLES
#define CYCLES 1
#endif
#ifndef LOST_REPLIES
#define LOST_REPLIES 1
#endif
#ifndef KILLS
#define KILLS 1
#endif
#ifndef PAUSES
#define PAUSES 1
#endif
#ifndef LATE_RENEWALS
#define LATE_RENEWALS 0
#endif
#ifndef REENTRIES
#define REENTRIES 0          /* re-entries of a hold's own mode, per thread and run */
#endif

/* Redis: per owner field 1..3 */
byte rr[NT + 1];             /* '<owner>:r' */
byte ww[NT + 1];             /* '<owner>:w' */
byte writer;                 /* 'writer' (0 = none) */
bool lease[NT + 1];          /* the owner's member of the leases sorted set */
byte tk[NT + 1];             /* '<owner>:t' */
byte fence;                  /* the fencing-token counter */
byte lastTok;

/* clients */
bool dead[2];
bool paused[2];
byte belR[NT];               /* read holds the thread believes it has */
byte belW[NT];               /* write holds the thread believes it has */
bool ended[NT];              /* the lease behind its beliefs ended (it is told the lock was lost) */
byte lostReplies = LOST_REPLIES;
byte kills = KILLS;
byte pauses = PAUSES;
byte lateRenewals = LATE_RENEWALS;

#define RUNNING(L) (!dead[L] && !paused[L])
#define OTHERS_WRITE(o) ((o != 1 && ww[1] > 0) || (o != 2 && ww[2] > 0) || (o != 3 && ww[3] > 0))
#define OTHERS_READ(o)  ((o != 1 && rr[1] > 0) || (o != 2 && rr[2] > 0) || (o != 3 && rr[3] > 0))
#define ANY_LEASE (lease[1] || lease[2] || lease[3])

#define RW_STATE printf("| %d %d %d %d %d %d %d %d %d %d\n", rr[1], ww[1], lease[1], rr[2], ww[2], lease[2], rr[3], ww[3], lease[3], writer)

inline check() {
    /* at most one owner holds a write hold */
    assert((ww[1] > 0) + (ww[2] > 0) + (ww[3] > 0) <= 1);   /* property: single_writer */
    /* while an owner writes, no other owner reads */
    assert(!(ww[1] > 0 && OTHERS_READ(1)) && !(ww[2] > 0 && OTHERS_READ(2)) && !(ww[3] > 0 && OTHERS_READ(3)));   /* property: no_reader_beside_writer */
    /* (last_release_frees is asserted at the release: the owner's last hold of a mode, as its client counts, leaves
       Redis none of that mode, which a watchdog believing Redis' count would renew with nobody behind it) */
    /* a thread believing it writes sees no other holder, one believing it reads no other writer, unless its lease ended */
    assert((belW[0] == 0 || ended[0] || !(OTHERS_WRITE(1) || OTHERS_READ(1))) && (belR[0] == 0 || ended[0] || !OTHERS_WRITE(1))
        && (belW[1] == 0 || ended[1] || !(OTHERS_WRITE(2) || OTHERS_READ(2))) && (belR[1] == 0 || ended[1] || !OTHERS_WRITE(2))
        && (belW[2] == 0 || ended[2] || !(OTHERS_WRITE(3) || OTHERS_READ(3))) && (belR[2] == 0 || ended[2] || !OTHERS_WRITE(3)));   /* property: no_false_belief_rw */
}

/* The owner's lease ended: it leaves with every hold (read-write.lua:43 "for _, gone in ipairs(redis.call('zrangebyscore', leases, '-inf', now)) do"). */
inline leaveOwner(o) {
    rr[o] = 0; ww[o] = 0; tk[o] = 0; lease[o] = 0;
    if :: writer == o -> writer = 0 :: else fi;
    if :: belR[o - 1] + belW[o - 1] > 0 -> ended[o - 1] = 1 :: else fi;
    printf("@E %d = ", o); RW_STATE
}

/* read-write.lua acquiring: wr = 'write' else 'read'; nothing = ARGV[4]; firstKind = ARGV[5]. */
inline acquireRw(o, wr, nothing, firstKind, ok, cnt) {
    if
    :: nothing ->                                         /* read-write.lua:77 "if acquiring and ARGV[4] == '1' then" */
        rr[o] = 0; ww[o] = 0; tk[o] = 0; lease[o] = 0;
        if :: writer == o -> writer = 0 :: else fi
    :: else
    fi;
    if
#ifdef BROKEN_RW_READ_BESIDE_WRITER
    :: writer != 0 && writer != o && wr -> ok = 0      /* broken: a read passes another owner's write */
#else
    :: writer != 0 && writer != o -> ok = 0               /* read-write.lua:89 "if writer and writer ~= owner then" */
#endif
#ifdef BROKEN_RW_WRITE_BESIDE_READERS
    :: false -> skip
#else
    :: wr && writer == 0 && ANY_LEASE -> ok = 0        /* read-write.lua:92 "if action == 'write' and not writer and redis.call('zcard', leases) > 0 then" */
#endif
    :: else ->
        if
        :: rr[o] + ww[o] == 0 -> fence++; tk[o] = fence;  /* read-write.lua:100 "token = string.format('%.0f', redis.call('incr', fence))" */
           assert(fence > lastTok);   /* property: tokens_rise */
           lastTok = fence
        :: else
        fi;
        if
        :: wr -> if :: firstKind -> ww[o] = 0 :: else fi; ww[o]++; cnt = ww[o]; writer = o   /* read-write.lua:115 "redis.call('hset', hash, 'writer', owner)" */
        :: else -> if :: firstKind -> rr[o] = 0 :: else fi; rr[o]++; cnt = rr[o]
        fi;
        lease[o] = 1;                                     /* read-write.lua:117 "redis.call('zadd', leases, 'GT', now + tonumber(ARGV[3]), owner)" */
        ok = 1
    fi
}

/* read-write.lua releasing one hold: rem = 255 (-1) when the owner has none of that kind, else the holds left;
   last = ARGV[4], the owner's last hold of that mode as its client counts: the mode's holds go whatever Redis counts. */
inline releaseRw(o, wr, last, rem) {
    if
    :: wr && ww[o] == 0 || !wr && rr[o] == 0 -> rem = 255   /* read-write.lua:123 "if redis.call('hexists', hash, field) == 0 then" */
    :: else ->
        if
#ifndef BROKEN_RW_COUNTS_FROM_REDIS
        :: last -> if :: wr -> ww[o] = 0 :: else -> rr[o] = 0 fi   /* read-write.lua:126 "local holdCount = ARGV[4] == '1' and 0 or redis.call('hincrby', hash, field, -1)" */
        :: else -> if :: wr -> ww[o]-- :: else -> rr[o]-- fi
#else
        :: true -> if :: wr -> ww[o]-- :: else -> rr[o]-- fi   /* broken: counts down what Redis counts */
#endif
        fi;
        if
        :: wr -> rem = ww[o]; if :: rem == 0 -> writer = 0 :: else fi   /* read-write.lua:132 "redis.call('hdel', hash, 'writer')" */
        :: else -> rem = rr[o]
        fi;
        if :: rr[o] + ww[o] == 0 -> tk[o] = 0; lease[o] = 0 :: else fi   /* read-write.lua:136 "redis.call('zrem', leases, owner)" */
    fi
}

inline loseReply(lost) {
    if
    :: lostReplies > 0 -> lostReplies--; lost = 1
    :: true -> lost = 0
    fi
}

proctype Client(byte t) {
    byte o = t + 1;
    byte L = LOCKER(t);
    byte cycles = 0, reentries = 0, ok, cnt, rem;
    bool wr, nested, lost, nothing, firstKind, last;
    {
idle:
    do
    :: atomic { belR[t] + belW[t] == 0 && cycles == CYCLES -> goto end_done }
    :: atomic { RUNNING(L) && belR[t] + belW[t] == 0 && cycles < CYCLES -> cycles++; ended[t] = 0; nested = 0; wr = 1; goto take }
    :: atomic { RUNNING(L) && belR[t] + belW[t] == 0 && cycles < CYCLES -> cycles++; ended[t] = 0; nested = 1; wr = 0; goto take }
    :: atomic { RUNNING(L) && belW[t] > 0 && belR[t] == 0 && !nested -> nested = 1; wr = 0; goto take }   /* a writer also reads, once a cycle */
    :: atomic { RUNNING(L) && reentries < REENTRIES && belR[t] > 0 -> reentries++; wr = 0; goto take }   /* a reader reads again */
    :: atomic { RUNNING(L) && reentries < REENTRIES && belW[t] > 0 && belR[t] == 0 -> reentries++; wr = 1; goto take }   /* a writer writes again */
    :: atomic { RUNNING(L) && belR[t] > 0 -> wr = 0; goto release }   /* the nested read first */
    :: atomic { RUNNING(L) && belW[t] > 0 && belR[t] == 0 -> wr = 1; goto release }
    od;
take:
    do
    :: atomic {
        RUNNING(L);
        /* ARGV[4]: the client knows of no hold of this owner; ARGV[5]: none of this kind */
        nothing = (belR[t] + belW[t] == 0);
        if :: wr -> firstKind = (belW[t] == 0) :: else -> firstKind = (belR[t] == 0) fi;
        acquireRw(o, wr, nothing, firstKind, ok, cnt);
        printf("@W %d %d %d %d = %d %d %d ", o, wr, nothing, firstKind, ok, cnt, (ok -> tk[o] : 0)); RW_STATE;
        nothing = 0; firstKind = 0;
        loseReply(lost);
        if
        :: ok && !lost -> if :: wr -> belW[t]++ :: else -> belR[t]++ fi; ok = 0; cnt = 0; check(); goto idle
        :: ok && lost -> ok = 0; cnt = 0; lost = 0; check(); goto idle      /* lock() throws: the count Redis keeps lapses, or the next try drops it */
        :: !ok && lost -> lost = 0; check(); goto idle
        :: !ok && !lost -> check()                        /* blocked: woken by 'all', or its wait ends */
        fi }
    :: atomic { RUNNING(L) -> goto idle }                  /* the wait's deadline */
    od;
release:
    atomic {
        RUNNING(L);
        last = (wr -> belW[t] == 1 : belR[t] == 1);       /* HeldLocks.java "leases[i] = hold.count <= 1 ? 0 : hold.restoreLease(watchdog);" */
        releaseRw(o, wr, last, rem);
        printf("@U %d %d %d = %d ", o, wr, last, rem); RW_STATE;
        assert(!last || (wr -> ww[o] : rr[o]) == 0);   /* property: last_release_frees */
        if :: wr -> belW[t]-- :: else -> belR[t]-- fi;  /* told or not, the caller let go */
        if :: belR[t] + belW[t] == 0 -> ended[t] = 0 :: else fi;
        loseReply(lost);
        rem = 0; lost = 0; last = 0;
        check();
        goto idle
    }
end_done:
    skip
    } unless { dead[L] }
}

/* The watchdog renews an owner's lease while its thread believes in a hold and its instance runs. */
#define RENEWED(o) (belR[o - 1] + belW[o - 1] > 0 && !ended[o - 1] && RUNNING(LOCKER(o - 1)))

proctype Time() {
end_time:
    do
    :: atomic { lease[1] && !RENEWED(1) -> leaveOwner(1); check() }
    :: atomic { lease[2] && !RENEWED(2) -> leaveOwner(2); check() }
    :: atomic { lease[3] && !RENEWED(3) -> leaveOwner(3); check() }
    :: atomic { lateRenewals > 0 && lease[1] && RENEWED(1) -> lateRenewals--; leaveOwner(1); check() }
    :: atomic { lateRenewals > 0 && lease[3] && RENEWED(3) -> lateRenewals--; leaveOwner(3); check() }
    :: atomic { kills > 0 -> kills--; if :: dead[0] = 1 :: dead[1] = 1 fi }
    :: atomic { pauses > 0 -> pauses--; if :: paused[0] = 1 :: paused[1] = 1 fi }
    :: atomic { paused[0] -> paused[0] = 0 }
    :: atomic { paused[1] -> paused[1] = 0 }
    od
}

init {
    atomic { run Client(0); run Client(1); run Client(2); run Time() }
}
