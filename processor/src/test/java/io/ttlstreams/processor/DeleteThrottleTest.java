package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class DeleteThrottleTest {

    /**
     * Whatever the punctuation times and whatever the due backlog, no one-second window sees more commands than the
     * limit: the punctuator asks {@link DeleteThrottle#available}, emits at most that many (fewer when little is due)
     * and records them.
     */
    @Property(tries = 500)
    void shouldNeverExceedTheLimitInAnyOneSecondWindow(
            @ForAll @IntRange(min = 1, max = 50) int perSecond,
            @ForAll @Size(min = 1, max = 200) List<@IntRange(min = 0, max = 700) Integer> gaps,
            @ForAll @Size(min = 1, max = 200) List<@IntRange(min = 0, max = 100) Integer> backlog) {
        DeleteThrottle throttle = new DeleteThrottle(perSecond);
        List<long[]> emissions = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < gaps.size(); i++) {
            now += gaps.get(i);
            int sent = Math.min(throttle.available(now), backlog.get(i % backlog.size()));
            throttle.consume(now, sent);
            emissions.add(new long[] {now, sent});
        }
        for (long[] start : emissions) {
            long inWindow = emissions.stream()
                    .filter(e -> e[0] >= start[0] && e[0] < start[0] + 1_000)
                    .mapToLong(e -> e[1])
                    .sum();
            assertThat(inWindow)
                    .as("commands in [%d, %d)", start[0], start[0] + 1_000)
                    .isLessThanOrEqualTo(perSecond);
        }
    }

    @Test
    void shouldStartEmptyAndRefillAfterASecond() {
        DeleteThrottle throttle = new DeleteThrottle(10);

        assertThat(throttle.available(0)).isEqualTo(10);
        throttle.consume(0, 10);
        assertThat(throttle.available(999)).isZero();
        assertThat(throttle.available(1_000)).isEqualTo(10);
    }

    @Property
    void shouldSplitTheLimitIntoWholeSharesThatAddUpToIt(
            @ForAll @IntRange(min = 1, max = 64) int partitions, @ForAll @IntRange(min = 0, max = 10_000) int extra) {
        int limit = partitions + extra;

        List<Integer> shares = IntStream.range(0, partitions)
                .mapToObj(partition -> DeleteThrottle.share(limit, partitions, partition))
                .toList();

        assertThat(shares.stream().mapToInt(Integer::intValue).sum()).isEqualTo(limit);
        assertThat(shares).allSatisfy(share -> assertThat(share).isBetween(limit / partitions, limit / partitions + 1));
    }

    @Test
    void shouldRefuseALimitThatLeavesATaskNoShare() {
        assertThatThrownBy(() -> DeleteThrottle.share(3, 4, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least the number of partitions");
    }
}
