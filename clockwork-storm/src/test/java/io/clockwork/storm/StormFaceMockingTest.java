package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.mockito.MockMakers;

/**
 * Storm users mock {@code TimeCacheMap} and {@code RotatingMap} in their bolts' tests; with only the imports changed
 * those tests mock the faces. Each case runs with Mockito's default (inline) mock maker and with the subclassing one,
 * which needs the classes and their methods not final, as Storm's are not.
 */
class StormFaceMockingTest {

    private static Object mockWithDefaultMaker(Class<?> type) {
        return mock(type);
    }

    private static Object mockBySubclassing(Class<?> type) {
        return mock(type, withSettings().mockMaker(MockMakers.SUBCLASS));
    }

    @Test
    void timeCacheMapIsMockedWithTheDefaultMockMaker() {
        checkTimeCacheMapMock(StormFaceMockingTest::mockWithDefaultMaker);
    }

    @Test
    void timeCacheMapIsMockedBySubclassing() {
        checkTimeCacheMapMock(StormFaceMockingTest::mockBySubclassing);
    }

    @Test
    void rotatingMapIsMockedWithTheDefaultMockMaker() {
        checkRotatingMapMock(StormFaceMockingTest::mockWithDefaultMaker);
    }

    @Test
    void rotatingMapIsMockedBySubclassing() {
        checkRotatingMapMock(StormFaceMockingTest::mockBySubclassing);
    }

    @SuppressWarnings("unchecked")
    private static void checkTimeCacheMapMock(Function<Class<?>, Object> mocker) {
        TimeCacheMap<String, Integer> pending = (TimeCacheMap<String, Integer>) mocker.apply(TimeCacheMap.class);
        when(pending.get("tuple-1")).thenReturn(42);
        when(pending.containsKey(anyString())).thenReturn(true);
        when(pending.size()).thenReturn(7);

        // what a bolt under test would do with its pending map
        pending.put("tuple-2", 2);
        assertThat(pending.get("tuple-1")).isEqualTo(42);
        assertThat(pending.containsKey("anything")).isTrue();
        assertThat(pending.size()).isEqualTo(7);
        assertThat(pending.remove("tuple-1")).as("an unstubbed call answers the default").isNull();
        pending.cleanup();

        verify(pending).put("tuple-2", 2);
        verify(pending).remove("tuple-1");
        verify(pending).cleanup();
        verify(pending, never()).put("tuple-1", 42);
    }

    @SuppressWarnings("unchecked")
    private static void checkRotatingMapMock(Function<Class<?>, Object> mocker) {
        RotatingMap<String, Integer> pending = (RotatingMap<String, Integer>) mocker.apply(RotatingMap.class);
        when(pending.rotate()).thenReturn(Map.of("timed-out", 1));
        when(pending.get("tuple-1")).thenReturn(42);

        assertThat(pending.rotate()).containsEntry("timed-out", 1);
        assertThat(pending.get("tuple-1")).isEqualTo(42);
        pending.put("tuple-2", 2);
        assertThat(pending.containsKey("tuple-2")).as("an unstubbed call answers the default").isFalse();

        verify(pending).rotate();
        verify(pending).put("tuple-2", 2);
        verify(pending, never()).remove(anyString());
    }
}
