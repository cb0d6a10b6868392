package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.ResyncReport.RuleTally;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/** A resync against the in-process MongoDB stand-in, publishing to a recording sink: no Kafka needed. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ResyncTest {

    private static final Namespace TOKENS = Namespace.parse("app.tokens");
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    private StandInMongo mongo;
    private MongoCollection<BsonDocument> tokens;

    @BeforeEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void start() {
        mongo = new StandInMongo();
        tokens = mongo.client().getDatabase("app").getCollection("tokens", BsonDocument.class);
    }

    @AfterEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void stop() {
        mongo.close();
    }

    /** A field rule on validUntil and a last-modified rule counting from updatedAt, both on app.tokens. */
    private TtlStreamsConfig config(String... more) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("ttl.rules", "tokens,idle");
        props.put("ttl.rule.tokens.namespace", "app.tokens");
        props.put("ttl.rule.tokens.field", "validUntil");
        props.put("ttl.rule.idle.namespace", "app.tokens");
        props.put("ttl.rule.idle.mode", "last-modified");
        props.put("ttl.rule.idle.expire.after.seconds", "3600");
        props.put("ttl.rule.idle.modified.field", "updatedAt");
        props.put("ttl.mongodb.uri", mongo.connectionString());
        for (int i = 0; i < more.length; i += 2) {
            props.put(more[i], more[i + 1]);
        }
        return new TtlStreamsConfig(props);
    }

    @Test
    void shouldBoundEveryReadOnASilentConnectionUnlessTheUriSetsItsOwnTimeout() {
        assertThat(Resync.clientSettings(config(), "t").getSocketSettings().getReadTimeout(TimeUnit.SECONDS))
                .isEqualTo(Resync.SOCKET_READ_TIMEOUT_SECONDS);
        TtlStreamsConfig own = config("ttl.mongodb.uri", mongo.connectionString() + "/?socketTimeoutMS=1500");
        assertThat(Resync.clientSettings(own, "t").getSocketSettings().getReadTimeout(TimeUnit.MILLISECONDS))
                .isEqualTo(1500);
    }

    private static BsonDocument token(String id) {
        return new BsonDocument("_id", new BsonString(id));
    }

    private static BsonDateTime at(Instant instant) {
        return new BsonDateTime(instant.toEpochMilli());
    }

    /** A clock ten seconds further on each time it is read. */
    private static Clock ticking() {
        AtomicInteger reads = new AtomicInteger();
        return new Clock() {
            @Override
            public Instant instant() {
                return T0.plusSeconds(10L * reads.getAndIncrement());
            }

            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }
        };
    }

    @Test
    void shouldPublishEachDocumentWithOnlyTheFieldsTheRulesReadStampedBeforeItsBatch() {
        for (int i = 1; i <= 5; i++) {
            tokens.insertOne(token("t" + i)
                    .append("validUntil", at(T0.plusSeconds(i)))
                    .append("updatedAt", at(T0))
                    .append("payload", new BsonString("not read by any rule")));
        }
        RecordingSink sink = new RecordingSink();

        ResyncReport report = new Resync(config("ttl.resync.batch.size", "2"), mongo.client(), ticking())
                .run(ResyncSelection.ALL, Optional.of(sink), ResyncProgress.none());

        assertThat(sink.events).extracting(ResyncEvent::topic).containsOnly("app.tokens");
        assertThat(sink.events)
                .extracting(ResyncEvent::key)
                .containsExactly(
                        "{\"_id\": \"t1\"}",
                        "{\"_id\": \"t2\"}",
                        "{\"_id\": \"t3\"}",
                        "{\"_id\": \"t4\"}",
                        "{\"_id\": \"t5\"}");
        List<BsonDocument> values = sink.events.stream()
                .map(event -> BsonDocument.parse(event.value()))
                .toList();
        assertThat(values.get(0).getDocument("fullDocument").keySet())
                .containsExactlyInAnyOrder("_id", "validUntil", "updatedAt");
        // The stand-in reports no cluster time: each batch of two carries the clock as read before it was fetched.
        assertThat(values)
                .extracting(value -> value.getTimestamp("clusterTime").getTime())
                .containsExactly(seconds(T0), seconds(T0), seconds(T0) + 10, seconds(T0) + 10, seconds(T0) + 20);
        assertThat(values).allMatch(value -> value.getTimestamp("clusterTime").getInc() == 0);
        assertThat(sink.flushes).hasValue(1);
        assertThat(report.documentsRead()).isEqualTo(5);
        assertThat(report.eventsPublished()).isEqualTo(5);
        assertThat(report.summary())
                .contains("app.tokens: 5 documents read, 5 resync events published to topic app.tokens")
                .contains("Stamped with this machine's clock");
    }

    @Test
    void shouldTellPerRuleWhatADryRunWouldScheduleAndWhatIsAlreadyDue() {
        tokens.insertOne(token("a").append("validUntil", at(T0.minusSeconds(100))));
        tokens.insertOne(token("b").append("validUntil", at(T0.minusSeconds(50))));
        tokens.insertOne(token("c").append("validUntil", at(T0.plusSeconds(500))));
        // Counts from its own modification date: long due.
        tokens.insertOne(token("d").append("updatedAt", at(T0.minusSeconds(7200))));
        // No date of its own: counts from the read.
        tokens.insertOne(token("e").append("validUntil", new BsonInt32(5)));

        ResyncReport report = new Resync(config(), mongo.client(), Clock.fixed(T0, ZoneOffset.UTC))
                .run(
                        new ResyncSelection(Optional.of(TOKENS), Optional.empty()),
                        Optional.empty(),
                        ResyncProgress.none());

        Map<String, RuleTally> rules = report.namespaces().get(TOKENS).rules();
        assertThat(rules.get("tokens").count()).isEqualTo(3);
        assertThat(rules.get("tokens").alreadyDue()).isEqualTo(2);
        assertThat(rules.get("tokens").first()).isEqualTo(T0.minusSeconds(100));
        assertThat(rules.get("tokens").last()).isEqualTo(T0.plusSeconds(500));
        assertThat(rules.get("idle").count()).isEqualTo(2);
        assertThat(rules.get("idle").alreadyDue()).isEqualTo(1);
        assertThat(rules.get("idle").first()).isEqualTo(T0.minusSeconds(3600));
        assertThat(rules.get("idle").last()).isEqualTo(T0.plusSeconds(3600));
        assertThat(report.eventsPublished()).isZero();
        assertThat(report.summary())
                .startsWith("Resync summary (dry run: nothing published):")
                .contains("app.tokens: 5 documents read, none published (topic app.tokens)")
                .contains("rule tokens: 3 to schedule, deadlines 2026-11-30T09:58:20.000Z to"
                        + " 2026-11-30T10:08:20.000Z, 2 already due")
                .contains("rule idle: 2 to schedule, deadlines 2026-11-30T09:00:00.000Z to"
                        + " 2026-11-30T11:00:00.000Z, 1 already due");
    }

    @Test
    void shouldResyncTheCollectionsOfADatabaseWideRuleThatASourceTopicCarries() {
        TtlStreamsConfig config = new TtlStreamsConfig(Map.of(
                "ttl.rules", "everything",
                "ttl.rule.everything.namespace", "app.*",
                "ttl.rule.everything.field", "expireAt",
                "ttl.source.topics", "app.carts,app.tokens",
                "ttl.mongodb.uri", mongo.connectionString()));
        tokens.insertOne(token("t").append("expireAt", at(T0)));
        mongo.client()
                .getDatabase("app")
                .getCollection("carts", BsonDocument.class)
                .insertOne(token("c"));
        mongo.client()
                .getDatabase("app")
                .getCollection("drafts", BsonDocument.class)
                .insertOne(token("d"));
        RecordingSink sink = new RecordingSink();

        ResyncReport report = new Resync(config, mongo.client(), Clock.fixed(T0, ZoneOffset.UTC))
                .run(ResyncSelection.ALL, Optional.of(sink), ResyncProgress.none());

        assertThat(sink.events)
                .extracting(event -> event.topic() + " " + event.key())
                .containsExactlyInAnyOrder("app.tokens {\"_id\": \"t\"}", "app.carts {\"_id\": \"c\"}");
        assertThat(report.skipped()).containsOnlyKeys(Namespace.parse("app.drafts"));
        assertThat(report.summary()).contains("app.drafts: skipped, no source topic carries it");
    }

    private static int seconds(Instant instant) {
        return (int) instant.getEpochSecond();
    }
}
