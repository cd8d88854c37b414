package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KeeperExceptionTest {

    @Test
    void codesCarryZooKeepersIntegerValues() {
        assertThat(KeeperException.Code.UNKNOWNSESSION.intValue()).isEqualTo(-12);
        assertThat(KeeperException.Code.SESSIONEXPIRED.intValue()).isEqualTo(-112);
        assertThat(KeeperException.Code.SESSIONMOVED.intValue()).isEqualTo(-118);
        assertThat(KeeperException.Code.get(-112)).isSameAs(KeeperException.Code.SESSIONEXPIRED);
        assertThatThrownBy(() -> KeeperException.Code.get(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void exceptionsHaveZooKeepersCodesAndMessages() {
        assertThat(new KeeperException.SessionExpiredException().code())
                .isEqualTo(KeeperException.Code.SESSIONEXPIRED);
        assertThat(new KeeperException.SessionExpiredException()).hasMessage("KeeperErrorCode = Session expired");
        assertThat(new KeeperException.SessionMovedException().code()).isEqualTo(KeeperException.Code.SESSIONMOVED);
        assertThat(new KeeperException.SessionMovedException()).hasMessage("KeeperErrorCode = Session moved");
        assertThat(new KeeperException.UnknownSessionException().code())
                .isEqualTo(KeeperException.Code.UNKNOWNSESSION);
        assertThat(new KeeperException.UnknownSessionException())
                .hasMessage("KeeperErrorCode = Unknown error UNKNOWNSESSION");
    }

    @Test
    void aCatchOfTheNestedTypeCompilesAndCatches() {
        SessionTracker tracker = new SessionTrackerImpl(1000, s -> { }, new io.clockwork.time.ManualTicker());
        String caught;
        try {
            tracker.checkSession(1, null);
            caught = "nothing";
        } catch (KeeperException.SessionExpiredException | KeeperException.SessionMovedException e) {
            caught = "expired or moved";
        } catch (KeeperException.UnknownSessionException e) {
            caught = "unknown, code " + e.code().intValue();
        } finally {
            tracker.shutdown();
        }
        assertThat(caught).isEqualTo("unknown, code -12");
    }
}
