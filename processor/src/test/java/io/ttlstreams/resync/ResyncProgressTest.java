package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.ResyncPlan.ResyncTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResyncProgressTest {

    private static final ResyncTarget TOKENS =
            new ResyncTarget(Namespace.parse("app.tokens"), "mongo.app.tokens", List.of());

    private final StringWriter text = new StringWriter();
    private final MovableClock clock = new MovableClock();

    /** A clock the test moves. */
    private static final class MovableClock extends Clock {
        private Instant now = Instant.parse("2026-11-30T10:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @Test
    void shouldWriteALineAtTheStartEveryFewSecondsAndAtTheEndWhereThereIsNoTerminal() {
        ResyncProgress progress = ResyncProgress.console(new PrintWriter(text), false, clock);

        progress.started(TOKENS, 1000);
        clock.advance(Duration.ofSeconds(1));
        progress.read(100);
        clock.advance(Duration.ofSeconds(4));
        progress.read(500);
        clock.advance(Duration.ofSeconds(5));
        progress.finished(1000);

        assertThat(text.toString().lines())
                .containsExactly(
                        "app.tokens: reading about 1000 documents, publishing to topic mongo.app.tokens",
                        "app.tokens: 500/1000 documents read (50%), 100 documents/s",
                        "app.tokens: 1000/1000 documents read (100%) in 10.0 s");
    }

    @Test
    void shouldRedrawOneBarInPlaceOnATerminal() {
        ResyncProgress progress = ResyncProgress.console(new PrintWriter(text), true, clock);

        progress.started(TOKENS, 1200);
        clock.advance(Duration.ofSeconds(1));
        progress.read(600);
        clock.advance(Duration.ofSeconds(1));
        progress.finished(1250);

        String shown = text.toString();
        assertThat(shown.chars().filter(c -> c == '\n').count())
                .as("line breaks")
                .isEqualTo(1);
        assertThat(shown.split("\r"))
                .containsSubsequence(
                        "app.tokens [------------------------------]   0% 0/1200 documents, 0/s   ",
                        "app.tokens [###############---------------]  50% 600/1200 documents, 600/s   ",
                        "app.tokens [##############################] 100% 1250/1250 documents, 625/s   \n");
    }
}
