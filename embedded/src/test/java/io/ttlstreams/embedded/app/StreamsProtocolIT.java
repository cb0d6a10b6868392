package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.StreamsDefaults;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.PercentEncoding;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.streams.KafkaStreams;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline under the streams rebalance protocol (KIP-1071, {@code group.protocol=streams}), the brokers' group
 * coordinator assigning the tasks: every scenario of {@link PipelineScenarios} (expiry on time, renewals, restarts,
 * dead letters), then confirmation, the status view of the tasks, readiness, a second instance ({@code ttl-streams
 * run --config}, a JVM of its own, with the same signing key) joining with a standby, taking the task over, answering
 * the queries the first forwards to it, and leaving.
 */
class StreamsProtocolIT extends EmbeddedPipelineScenarios {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    // One partition, as the classic scenarios: a barrier proves nothing across partitions.
    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(RULES)
            .and("embedded.partitions", "1")
            .and("group.protocol", "streams");

    private final OperationsHttp http = new OperationsHttp(PIPELINE::pipeline);

    @Override
    protected EmbeddedPipelineExtension pipeline() {
        return PIPELINE;
    }

    @Test
    void shouldRunAsAStreamsGroupConfirmDeletesAndShowItsTasksWhenGroupProtocolIsStreams() throws Exception {
        StreamsGroupDescription group = streamsGroup();
        assertThat(group.groupState()).isEqualTo(GroupState.STABLE);
        assertThat(group.members()).hasSize(1);
        assertThat(groupConfigs())
                .as("the embedded broker's settings of streams groups: the processor's defaults")
                .containsEntry("streams.num.standby.replicas", "1")
                .containsEntry(
                        "streams.session.timeout.ms", Integer.toString(StreamsDefaults.DEFAULT_SESSION_TIMEOUT_MS))
                .containsEntry(
                        "streams.heartbeat.interval.ms",
                        Integer.toString(StreamsDefaults.DEFAULT_HEARTBEAT_INTERVAL_MS));

        Instant deadline = ExpiryProbe.deadlineIn(3);
        PIPELINE.collection(SESSIONS).insertOne(expiring("confirmed", deadline));
        ExpiryProbe.assertExpireOnTime(
                PIPELINE.collection(SESSIONS), List.of("confirmed"), deadline, ExpiryProbe.WITHIN);
        await("the delete confirmed")
                .atMost(ExpiryProbe.WAIT)
                .until(() -> status().getDouble("deletesConfirmed").getValue() >= 1);

        assertThat(http.readyStatus()).isEqualTo(200);
        assertThat(status().getArray("tasks").stream()
                        .map(task -> task.asDocument().getString("id").getValue() + " "
                                + task.asDocument().getString("kind").getValue())
                        .toList())
                .as("the status page's tasks, as the group coordinator assigned them")
                .contains("0_0 active");
    }

    @Test
    void shouldHandTheTaskOverForwardQueriesAndTakeItBackWhenASecondInstanceJoinsAndLeaves(@TempDir Path dir)
            throws Exception {
        EmbeddedPipeline pipeline = PIPELINE.pipeline();
        Path log = dir.resolve("second-instance.log");
        Process second = PIPELINE.startRun(PIPELINE.instanceSettings(), log, "--status-interval", "1");
        try {
            await("the second instance ready, with a standby of the task (streams.num.standby.replicas=1)")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> !second.isAlive() || statusLines(log).anyMatch(line -> line.contains("standby=0_0")));
            assertThat(second.isAlive())
                    .as("running; it printed:%n%s", read(log))
                    .isTrue();
            assertThat(streamsGroup().members()).hasSize(2);

            pipeline.stopProcessor(); // leaves the group: the task moves to the second instance's standby
            await("the task active on the second instance")
                    .atMost(ExpiryProbe.WAIT)
                    .until(() -> statusLines(log).anyMatch(line -> line.contains("active=0_0")));
            expireNow("on-the-second-instance");

            pipeline.startProcessor();
            TtlStreamsApp first = pipeline.processor();
            Instant farAhead = ExpiryProbe.deadlineIn(3600);
            PIPELINE.collection(SESSIONS).insertOne(expiring("forwarded", farAhead));
            // One request read for both the status and the body: a second request may meet the group between
            // assignments (503, "retry") and would not be the answer the wait saw.
            HttpResponse<String> answer = await("the first instance answers for the second's document, forwarding it")
                    .atMost(ExpiryProbe.WAIT)
                    .ignoreExceptionsInstanceOf(IOException.class)
                    .until(
                            () -> http.get(first.httpUrl(), documentPath("forwarded")),
                            response -> response.statusCode() == 200);
            BsonDocument found = BsonDocument.parse(answer.body());
            assertThat(found.getString("deadline").getValue()).isEqualTo(farAhead.toString());
            assertThat(found.getString("instance").getValue())
                    .as("answered by the task's owner, the second instance")
                    .isNotEqualTo(first.applicationServer());

            second.destroy(); // SIGTERM: the instance leaves the group
            assertThat(second.waitFor(1, TimeUnit.MINUTES))
                    .as("stopped; it printed:%n%s", read(log))
                    .isTrue();
            assertThat(second.exitValue()).isZero();
            await("the task back on the first instance")
                    .atMost(ExpiryProbe.WAIT)
                    .until(() -> first.streams().state() == KafkaStreams.State.RUNNING
                            && ProcessorFailoverIT.tasks(first.streams(), true).equals(Set.of("0_0")));
            expireNow("back-on-the-first");
        } finally {
            second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * {@code resync} finds what the processor reads from its streams group's topology (a streams group is no consumer
     * group): it publishes with the processor's configuration, and refuses one whose topics the group does not read.
     */
    @Test
    void shouldResyncIntoTheTopicsTheStreamsGroupReadsAndRefuseOthersWhenGroupProtocolIsStreams() throws Exception {
        Map<String, String> settings = PIPELINE.processorSettings();
        CommandRun resync = CommandRun.of(
                "resync", "--config", PIPELINE.propertiesFile(settings).toString());
        assertThat(resync.exitCode()).as(resync.out() + resync.err()).isZero();
        assertThat(resync.out()).contains("resync events published to topic app.sessions");

        // The connector's topic.prefix: the rule's topic becomes elsewhere.app.sessions, which nobody reads.
        settings.remove("ttl.source.topics");
        settings.put("ttl.source.topic.prefix", "elsewhere");
        CommandRun elsewhere = CommandRun.of(
                "resync", "--config", PIPELINE.propertiesFile(settings).toString());
        assertThat(elsewhere.exitCode()).as(elsewhere.out() + elsewhere.err()).isNotZero();
        assertThat(elsewhere.err())
                .contains("reads [")
                .contains("not [elsewhere.app.sessions]")
                .contains("read by nobody");
    }

    private StreamsGroupDescription streamsGroup() throws Exception {
        String group = processorConfig().streamsProperties().getProperty("application.id");
        try (Admin admin = PIPELINE.pipeline().stack().kafka().setupAdmin()) {
            return admin.describeStreamsGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** The group's configuration as the broker describes it: its own settings, else the broker's defaults. */
    private Map<String, String> groupConfigs() throws Exception {
        ConfigResource group = new ConfigResource(
                ConfigResource.Type.GROUP, processorConfig().streamsProperties().getProperty("application.id"));
        try (Admin admin = PIPELINE.pipeline().stack().kafka().setupAdmin()) {
            Map<String, String> configs = new HashMap<>();
            admin.describeConfigs(List.of(group))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(group)
                    .entries()
                    .forEach(entry -> configs.put(entry.name(), entry.value()));
            return configs;
        }
    }

    private BsonDocument status() throws IOException, InterruptedException {
        return BsonDocument.parse(http.get("/v1/status").body());
    }

    private static void expireNow(String id) {
        Instant deadline = ExpiryProbe.deadlineIn(2);
        PIPELINE.collection(SESSIONS).insertOne(expiring(id, deadline));
        ExpiryProbe.assertExpireOnTime(PIPELINE.collection(SESSIONS), List.of(id), deadline, ExpiryProbe.WITHIN);
    }

    private static Document expiring(String id, Instant deadline) {
        return new Document("_id", id).append("expireAt", Date.from(deadline));
    }

    private static String documentPath(String id) {
        String key = new BsonDocument("_id", new BsonString(id)).toJson();
        return "/v1/documents/" + SESSIONS + "/" + PercentEncoding.encode(key);
    }

    private static Stream<String> statusLines(Path log) throws IOException {
        return read(log).lines().filter(line -> line.startsWith("status: state=RUNNING "));
    }

    private static String read(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }
}
