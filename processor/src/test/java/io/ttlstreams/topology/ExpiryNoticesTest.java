package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.state.ScheduleQueries;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * Notices ({@code ttl.rule.<name>.notice.before.seconds=5}): an {@code EXPIRING} record 5 s before the deadline, on
 * the wall clock the punctuator runs on (every 100 ms here, so within 1 s), exactly once per deadline; none for a
 * document renewed before its notice, a new one for its new deadline, none for a deadline closer than 5 s when it
 * was scheduled.
 */
class ExpiryNoticesTest {

    private static final String TOPIC = "ttl.expired";
    private static final BsonString ID = new BsonString("d1");

    private static TopologyFixture fixture() {
        return new TopologyFixture(TopologyFixture.sessionsSettings(
                "ttl.expired.topic", TOPIC,
                "ttl.rule.sessions.notice.before.seconds", "5",
                "ttl.punctuate.interval.ms", "100"));
    }

    private static BsonDocument dueIn(Duration offset) {
        return new BsonDocument("expireAt", new BsonDateTime(START.plus(offset).toEpochMilli()));
    }

    private static List<BsonDocument> notices(TopologyFixture fixture) {
        return fixture.output(TOPIC).readValuesToList().stream()
                .map(BsonDocument::parse)
                .filter(record -> record.getString("type").getValue().equals("EXPIRING"))
                .toList();
    }

    /** The pending notice {@code GET /v1/documents} shows for d1; null for none. */
    private static Instant pendingNotice(TopologyFixture fixture) {
        return ScheduleQueries.find(
                        fixture.indexStore(),
                        fixture.scheduleStore(),
                        fixture.taskStore(),
                        Namespace.parse("app.sessions"),
                        new BsonDocument("_id", ID),
                        rule -> OptionalLong.of(5))
                .orElseThrow()
                .notice();
    }

    @Test
    void shouldPublishOneNoticeFiveSecondsBeforeTheDeadline() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, dueIn(Duration.ofSeconds(20))));

            fixture.wallClockAt(Duration.ofMillis(14_000));
            assertThat(notices(fixture)).as("more than 1 s early").isEmpty();
            assertThat(pendingNotice(fixture)).as("/v1/documents shows it").isEqualTo(START.plusSeconds(15));
            fixture.wallClockAt(Duration.ofMillis(16_000));
            List<BsonDocument> notices = notices(fixture);

            assertThat(notices).hasSize(1);
            BsonDocument notice = notices.get(0);
            Instant sentAt = Instant.parse(notice.getString("sentAt").getValue());
            assertThat(Duration.between(sentAt, START.plusSeconds(20)))
                    .isBetween(Duration.ofSeconds(4), Duration.ofSeconds(6));
            assertThat(notice.getString("deadline").getValue())
                    .isEqualTo(START.plusSeconds(20).toString());
            assertThat(notice.getString("noticeAt").getValue())
                    .isEqualTo(START.plusSeconds(15).toString());
            assertThat(notice.getDocument("documentKey")).isEqualTo(new BsonDocument("_id", ID));
            assertThat(fixture.metric(TtlMetrics.NOTICES)).isEqualTo(1);

            assertThat(pendingNotice(fixture)).as("sent, no longer pending").isNull();
            fixture.wallClockAt(Duration.ofSeconds(20));
            assertThat(fixture.deletes()).hasSize(1);
            assertThat(notices(fixture)).as("once").isEmpty();
        }
    }

    @Test
    void shouldPublishNoNoticeForARenewedDeadlineAndOneForTheNewDeadline() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, dueIn(Duration.ofSeconds(20))));
            fixture.wallClockAt(Duration.ofSeconds(10));
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            events.at(START.plusSeconds(10)).update(ID, dueIn(Duration.ofSeconds(60))));

            fixture.wallClockAt(Duration.ofSeconds(30));
            assertThat(notices(fixture)).as("none for the renewed deadline").isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(56));
            assertThat(notices(fixture))
                    .extracting(n -> n.getString("deadline").getValue())
                    .containsExactly(START.plusSeconds(60).toString());
        }
    }

    @Test
    void shouldPublishNoNoticeForADeadlineCloserThanTheNoticePeriodWhenScheduled() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, dueIn(Duration.ofSeconds(3))));

            // The delete command at the deadline is the marker: anything due before it went out first.
            fixture.wallClockAt(Duration.ofSeconds(3));
            assertThat(fixture.deletes()).hasSize(1);
            assertThat(notices(fixture)).isEmpty();
        }
    }
}
