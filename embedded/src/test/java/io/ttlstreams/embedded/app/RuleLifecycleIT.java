package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.serde.AvroSerde;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rules changed across restarts, on the embedded pipeline: the documents of a rule removed while they were scheduled
 * are never deleted (their entries are cancelled and audited as RULE_REMOVED), and under {@code ttl.dry.run} a due
 * document is audited as DRY_RUN and gets no delete command.
 *
 * <p>The stack watches app.sessions (a rule in every configuration) and app.carts (a rule only in some).
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class RuleLifecycleIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace CARTS = Namespace.parse("app.carts");
    private static final String AUDIT_TOPIC = "ttl.audit";

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(settings(true, false));

    private TopicReader audit;
    private ExpiryProbe sessions;
    private ExpiryProbe carts;

    /** A rule on app.sessions, with {@code carts} one on app.carts too; audited; both topics read either way. */
    private static Map<String, String> settings(boolean carts, boolean dryRun) {
        Map<String, String> settings = RuleSettings.expireAtRules(
                carts ? List.of(SESSIONS, CARTS) : List.of(SESSIONS), List.of(SESSIONS, CARTS));
        settings.put("ttl.audit.topic", AUDIT_TOPIC);
        settings.put("ttl.dry.run", Boolean.toString(dryRun));
        return settings;
    }

    /** Renders an audit record as "OUTCOME db.coll", to match on beside its key, the document key. */
    private static Deserializer<String> auditOutcomes() {
        Deserializer<ExpiryEvent> events = AvroSerde.of(ExpiryEvent.class).deserializer();
        return (topic, bytes) -> {
            ExpiryEvent event = events.deserialize(topic, bytes);
            return event.getOutcome() + " " + event.getNamespace();
        };
    }

    @BeforeAll
    void start() {
        audit = new TopicReader(PIPELINE.pipeline().stack().bootstrapServers(), AUDIT_TOPIC, auditOutcomes());
        sessions = PIPELINE.probe(SESSIONS);
        carts = PIPELINE.probe(CARTS);
    }

    @AfterAll
    void stop() {
        if (audit != null) {
            audit.close();
        }
    }

    private static boolean isAuditOf(
            ConsumerRecord<String, String> record, ExpiryOutcome outcome, Namespace ns, Object id) {
        return record.value().equals(outcome + " " + ns)
                && record.key().equals(io.ttlstreams.contract.CanonicalJson.of(ExpiryProbe.documentKey(id)));
    }

    @Test
    void shouldDeleteNoDocumentOfARuleRemovedWhileTheyWereScheduled() throws InterruptedException {
        PIPELINE.runWith(settings(true, false));
        // Far enough ahead that scheduling three documents and a restart end before it on a loaded machine: a
        // processor that still has the rule at the deadline deletes the carts, as it should.
        Instant deadline = ExpiryProbe.deadlineIn(15);
        List<Object> ids = List.of("cart-1", "cart-2", "cart-3");
        for (Object id : ids) {
            carts.insertExpiring(id, deadline);
        }
        for (Object id : ids) {
            carts.awaitScheduled(id, deadline);
        }

        PIPELINE.runWith(settings(false, false));
        assertThat(Instant.now())
                .as("the rule removed before the carts came due")
                .isBefore(deadline);

        // Due after the carts, wherever the restart ended: their commands would have come first.
        Instant after = Instant.now().isAfter(deadline) ? Instant.now() : deadline;
        List<ConsumerRecord<String, String>> before = sessions.beforeBarrier("removed-rule-barrier", after);
        for (Object id : ids) {
            assertThat(before).as("delete commands for %s", id).noneMatch(r -> carts.isCommandFor(r, id));
            assertThat(carts.exists(id)).as("%s exists", id).isTrue();
            await(id + " audited as RULE_REMOVED")
                    .atMost(ExpiryProbe.WAIT)
                    .until(
                            () -> audit.poll(r -> isAuditOf(r, ExpiryOutcome.RULE_REMOVED, CARTS, id)),
                            found -> !found.isEmpty());
        }
    }

    @Test
    void shouldEmitNoDeleteCommandInADryRun() throws InterruptedException {
        PIPELINE.runWith(settings(false, true));
        Instant deadline = ExpiryProbe.deadlineIn(1);
        sessions.insertExpiring("dry", deadline);
        await("dry audited as DRY_RUN")
                .atMost(ExpiryProbe.WAIT)
                .until(
                        () -> audit.poll(r -> isAuditOf(r, ExpiryOutcome.DRY_RUN, SESSIONS, "dry")),
                        found -> !found.isEmpty());

        // Out of the dry run, a document due after it is the barrier: a command for dry would have come first.
        PIPELINE.runWith(settings(false, false));

        assertThat(sessions.commandsBeforeBarrier("dry", Instant.now())).isEmpty();
        assertThat(sessions.exists("dry")).isTrue();
    }
}
