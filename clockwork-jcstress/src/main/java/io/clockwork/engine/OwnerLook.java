package io.clockwork.engine;

/**
 * The owner's side of the wake-up handshake tests ({@link NearWakeUp}, {@link FarWakeUp}, {@link OwnerDatedWakeUp}):
 * a look at the lanes before a planned sleep, and whether a producer claimed the wake-up. Stateless; each call acts
 * on the core it is given, from the calling actor's thread.
 */
final class OwnerLook {

    private OwnerLook() {
    }

    /** @return 1 if the owner, publishing a sleep of {@code sleepNanos} from wheel time 0, took an entry, else 0 */
    static int takes(TimerCore<Probe> core, long sleepNanos) {
        core.settleWakeAt(0L, sleepNanos);
        return core.isIdle() ? 0 : 1;
    }

    /** @return 1 if a producer claimed the owner's planned wake-up (it unparked the owner), else 0 */
    static int wakeClaimed(TimerCore<Probe> core) {
        return core.wakeAt() == TimerCore.AWAKE ? 1 : 0;
    }
}
