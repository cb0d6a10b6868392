package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PunctuationBudgetTest {

    @Test
    void shouldStopWhenItsEntriesAreHandled() {
        PunctuationBudget run = new PunctuationBudget(2, 0, Long.MAX_VALUE, () -> 0);

        assertThat(run.left()).isTrue();
        run.handled();
        assertThat(run.left()).isTrue();
        run.handled();
        assertThat(run.left()).isFalse();
    }

    @Test
    void shouldLookAtTheClockOnlyEverySixtyFourEntriesWhenTimeIsSpent() {
        AtomicInteger clockReads = new AtomicInteger();
        // Every read of the clock finds the time budget spent.
        PunctuationBudget run = new PunctuationBudget(1_000, 0, 10, () -> {
            clockReads.incrementAndGet();
            return 1_000;
        });

        for (int i = 0; i < 64; i++) {
            assertThat(run.left()).isTrue();
            run.handled();
        }
        assertThat(clockReads).hasValue(0);
        assertThat(run.left()).isFalse();
        assertThat(clockReads).hasValue(1);
    }

    @Test
    void shouldCountCommandsWhenSent() {
        PunctuationBudget run = new PunctuationBudget(10, 0, 10, () -> 0);

        run.commandSent();
        run.commandSent();

        assertThat(run.commands()).isEqualTo(2);
    }
}
