package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PunctuationTimeShareTest {

    private static final long ONE_SECOND = Duration.ofSeconds(1).toNanos();

    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopOtherThread() {
        otherThread.shutdownNow();
    }

    @Test
    void shouldGiveALoneTaskItsWholeBudget() {
        PunctuationTimeShare share = new PunctuationTimeShare(TestConfigs.config());

        share.join();

        assertThat(share.maxNanos()).isEqualTo(ONE_SECOND);
    }

    @Test
    void shouldSplitHalfTheTransactionTimeoutAmongTheTasksOfOneThreadUnderExactlyOnce() {
        // Kafka Streams' transaction.timeout.ms under exactly-once is 10 s: 5 s for a thread's punctuations.
        PunctuationTimeShare share = new PunctuationTimeShare(TestConfigs.config());

        for (int task = 0; task < 10; task++) {
            share.join();
        }

        assertThat(share.maxNanos()).isEqualTo(Duration.ofMillis(500).toNanos());
    }

    @Test
    void shouldFollowTheProducersTransactionTimeout() {
        PunctuationTimeShare share = new PunctuationTimeShare(TestConfigs.config(
                "producer.transaction.timeout.ms", "60000", "ttl.punctuate.max.duration.ms", "2000"));

        for (int task = 0; task < 20; task++) {
            share.join();
        }

        assertThat(share.maxNanos()).isEqualTo(Duration.ofMillis(1_500).toNanos());
    }

    @Test
    void shouldNotSplitUnderAtLeastOnceWhereNoTransactionBoundsTheThread() {
        PunctuationTimeShare share =
                new PunctuationTimeShare(TestConfigs.config("processing.guarantee", "at_least_once"));

        for (int task = 0; task < 10; task++) {
            share.join();
        }

        assertThat(share.maxNanos()).isEqualTo(ONE_SECOND);
    }

    @Test
    void shouldCountOnlyTheTasksOfTheCallingThread() throws Exception {
        PunctuationTimeShare share = new PunctuationTimeShare(TestConfigs.config());
        for (int task = 0; task < 9; task++) {
            CompletableFuture.runAsync(share::join, otherThread).get();
        }

        share.join();

        assertThat(share.maxNanos()).isEqualTo(ONE_SECOND);
        assertThat(CompletableFuture.supplyAsync(share::maxNanos, otherThread).get())
                .isEqualTo(Duration.ofSeconds(5).toNanos() / 9);
    }

    @Test
    void shouldGiveTheTimeBackWhenTasksLeave() {
        PunctuationTimeShare share =
                new PunctuationTimeShare(TestConfigs.config("ttl.punctuate.max.duration.ms", "5000"));
        Thread thread = null;
        for (int task = 0; task < 10; task++) {
            thread = share.join();
        }

        for (int task = 0; task < 5; task++) {
            share.leave(thread);
        }

        assertThat(share.maxNanos()).isEqualTo(ONE_SECOND);
        share.leave(thread);
        share.leave(thread);
        share.leave(thread);
        assertThat(share.maxNanos()).isEqualTo(Duration.ofMillis(2_500).toNanos());
        share.leave(thread);
        share.leave(thread);
        assertThat(share.maxNanos()).isEqualTo(Duration.ofSeconds(5).toNanos());
    }
}
