package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.EmbeddedStack;
import io.ttlstreams.embedded.KafkaUsers;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.platform.AclPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 30 on the embedded pipeline with {@code embedded.kafka.security=scram-acls}: a broker that authenticates
 * every client with SCRAM and enforces exactly the ACLs {@code ttl-streams platform} renders, each part of the stack
 * logging in as its own user; the part of it that depends on how the processor's group is run, so that it runs under
 * each group protocol ({@link LeastPrivilegeIT}, classic; {@link LeastPrivilegeStreamsProtocolIT}, streams).
 *
 * <ul>
 *   <li>Positive: documents expire at their deadline and deletes are confirmed; a restarted processor and a second
 *       instance work (group, transactional ids); {@code resync} publishes as the processor; {@code approve} decides
 *       as the operators' user; a forged command is dead-lettered by the sink and counted by the processor;
 *       operators read the dead letters, the audit and the expired records the processor wrote; a dropped collection
 *       reaches every task through the control topic.</li>
 *   <li>Every ACL needed: the broker's authorizer logs every access it grants during the positive run; for each ACL
 *       binding of the plan, those requests are replayed through Kafka's {@code StandardAuthorizer} with the plan less
 *       that binding, and at least one must be refused, one for that very operation, named by principal, operation
 *       and resource.</li>
 * </ul>
 *
 * <p>No test depends on another's order: the positive run happens once, in whichever test of the class comes first
 * (each needs it), and its grants are frozen before anything is tried on purpose that the plan refuses; a test that
 * takes an ACL away or stops the processor gives them back before it ends. Each subclass registers the pipeline
 * (started with {@link #settings()} and its own), watched by its authorization log from before start-up
 * ({@link EmbeddedPipelineExtension#watchedBy}), on static fields of its own.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
abstract class LeastPrivilegeScenarios {

    private final AuthorizationLog authorizations;
    private final EmbeddedPipelineExtension pipeline;

    /** The subclass's authorization log and the pipeline it watches, on its static fields. */
    LeastPrivilegeScenarios(AuthorizationLog authorizations, EmbeddedPipelineExtension pipeline) {
        this.authorizations = authorizations;
        this.pipeline = pipeline;
    }

    AuthorizationLog authorizations() {
        return authorizations;
    }

    EmbeddedPipelineExtension pipeline() {
        return pipeline;
    }

    static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace HELD = Namespace.parse("app.held");
    static final String AUDIT = "ttl.audit";
    static final String EXPIRED = "ttl.expired";
    static final Duration WAIT = ExpiryProbe.WAIT;
    private static final Pattern HOLDS = Pattern.compile("rule held holds (\\d+) documents");

    private final OperationsHttp http = new OperationsHttp(() -> pipeline().pipeline());

    /** The positive run's outcome, once it has run: null before, else its failure or nothing. */
    private Optional<Throwable> positiveRun;

    /**
     * Two rules: app.sessions, and app.held whose guard holds a second document due on arrival; auditing and expired
     * records on, so that the audit's and the expired topic's ACLs are the enforced ones too; one partition per topic.
     */
    static Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>();
        settings.put("ttl.rules", "sessions,held");
        settings.put("ttl.rule.sessions.namespace", SESSIONS.toString());
        settings.put("ttl.rule.sessions.field", "expireAt");
        settings.put("ttl.rule.held.namespace", HELD.toString());
        settings.put("ttl.rule.held.field", "expireAt");
        settings.put("ttl.rule.held.guard.max.due.on.arrival", "1");
        settings.put("ttl.audit.topic", AUDIT);
        settings.put("ttl.expired.topic", EXPIRED);
        settings.put("embedded.partitions", "1");
        settings.put(EmbeddedOptions.EMBEDDED_KAFKA_SECURITY_CONFIG, "scram-acls");
        return settings;
    }

    EmbeddedStack stack() {
        return pipeline().pipeline().stack();
    }

    KafkaUsers users() {
        return stack().kafkaUsers().orElseThrow();
    }

    AclPlan plan() {
        return users().plan();
    }

    @Test
    void shouldRunThePipelineWhenEveryPartLogsInAsItsOwnUser() throws Throwable {
        Optional<Throwable> failure = positiveRun();
        if (failure.isPresent()) {
            throw failure.get();
        }
        assertThat(pipeline().pipeline().processor().security().describe())
                .isEqualTo("SASL_PLAINTEXT, SCRAM-SHA-512, as User:" + AclPlan.PROCESSOR_USER);
        // Who the broker saw: every part as its own user, and nothing of the stack's as the super user.
        List<String> principals = authorizations().grants().stream()
                .map(AuthorizationLog.Decision::principal)
                .distinct()
                .sorted()
                .toList();
        System.out.println("[least-privilege] principals granted access during the run: " + principals);
        assertThat(principals)
                .containsAll(plan().principals().stream()
                        .map(principal -> principal.principal())
                        .toList());
    }

    /** One ACL binding of the plan, named as the broker names it. */
    record PlanAcl(AclBinding binding) {
        @Override
        public String toString() {
            ResourcePattern pattern = binding.pattern();
            return binding.entry().principal() + " " + binding.entry().operation() + " on "
                    + pattern.resourceType() + " " + pattern.name()
                    + (pattern.patternType() == PatternType.PREFIXED ? "*" : "");
        }
    }

    List<PlanAcl> planAcls() {
        return plan().bindings().stream().map(PlanAcl::new).toList();
    }

    @ParameterizedTest(name = "without {0}")
    @MethodSource("planAcls")
    void shouldRefuseARequestOfTheRunWhenOneAclOfThePlanIsMissing(PlanAcl acl) {
        afterThePositiveRun("the positive run, whose requests are replayed");
        AccessControlEntry entry = acl.binding().entry();
        // The refusals of the operation itself first: Kafka also refuses what it implies (Write implies Describe).
        List<AuthorizationLog.Decision> refused =
                authorizations().refusedWithout(acl.binding(), plan().bindings()).stream()
                        .sorted(Comparator.comparing(decision -> decision.operation() != entry.operation()))
                        .toList();
        assertThat(refused)
                .as("requests of the run that %s alone allowed: with none, the ACL is not needed", acl)
                .isNotEmpty();
        assertThat(refused)
                .as("each refusal names the missing ACL's principal")
                .allSatisfy(decision -> assertThat(decision.principal()).isEqualTo(entry.principal()));
        assertThat(refused.get(0).operation())
                .as("an operation of the run that needs %s itself, not only what it implies: %s", acl, refused)
                .isEqualTo(entry.operation());
        System.out.printf(
                "[least-privilege] without %s: %d request(s) of the run refused, e.g. %s%n",
                acl, refused.size(), refused.get(0));
    }

    /** Fails unless the positive run, which a test needs before it, passed. */
    void afterThePositiveRun(String why) {
        assertThat(positiveRun()).as(why).isEmpty();
    }

    static String read(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    // --- The positive run -----------------------------------------------------------------------------------------

    private synchronized Optional<Throwable> positiveRun() {
        if (positiveRun == null) {
            try {
                runPositiveChecks();
                positiveRun = Optional.empty();
            } catch (Throwable failure) {
                positiveRun = Optional.of(failure);
            } finally {
                authorizations().stopCollectingGrants();
            }
        }
        return positiveRun;
    }

    private void runPositiveChecks() throws Exception {
        MongoCollection<Document> sessions = pipeline().collection(SESSIONS);
        MongoCollection<Document> held = pipeline().collection(HELD);

        authorizations().during("expiry");
        Instant deadline = ExpiryProbe.deadlineIn(3);
        sessions.insertOne(expiring("expires", deadline));
        ExpiryProbe.assertExpireOnTime(sessions, List.of("expires"), deadline, ExpiryProbe.WITHIN);
        await("the delete confirmed")
                .atMost(WAIT)
                .until(() -> status().getDouble("deletesConfirmed").getValue() >= 1);

        authorizations().during("restart and a second instance");
        restartAndSecondInstance(sessions);

        authorizations().during("resync");
        resync(sessions, held);

        authorizations().during("approve");
        approve(held);

        authorizations().during("dead letters");
        deadLetters();

        authorizations().during("drop");
        drop(held);

        authorizations().during("heartbeat");
        heartbeat();
    }

    static Document expiring(String id, Instant deadline) {
        return new Document("_id", id).append("expireAt", Date.from(deadline));
    }

    private BsonDocument status() throws IOException, InterruptedException {
        return BsonDocument.parse(http.get("/v1/status").body());
    }

    /**
     * The processor restarts on its state; a second instance (same application, its own state) joins, takes the task
     * when the first leaves, with a transactional producer of its own, and deletes; the first comes back.
     */
    private void restartAndSecondInstance(MongoCollection<Document> sessions) throws Exception {
        EmbeddedPipeline pipeline = pipeline().pipeline();
        pipeline.stopProcessor();
        pipeline.startProcessor();
        expireNow(sessions, "after-restart");

        TtlStreamsApp second =
                new TtlStreamsApp(new TtlStreamsConfig(pipeline().instanceSettings()), Optional.empty()).start();
        try {
            second.awaitRunning(Duration.ofMinutes(1));
            pipeline.stopProcessor();
            awaitActive(second);
            expireNow(sessions, "on-the-second-instance");
            pipeline.startProcessor();
        } finally {
            second.close();
        }
        awaitActive(pipeline.processor());
        expireNow(sessions, "back-on-the-first");
    }

    static void expireNow(MongoCollection<Document> collection, String id) {
        Instant deadline = ExpiryProbe.deadlineIn(2);
        collection.insertOne(expiring(id, deadline));
        ExpiryProbe.assertExpireOnTime(collection, List.of(id), deadline, WAIT);
    }

    private static void awaitActive(TtlStreamsApp instance) {
        await("the task active on " + instance.httpUrl())
                .atMost(WAIT)
                .until(() -> instance.streams().state() == KafkaStreams.State.RUNNING
                        && instance.streams().metadataForLocalThreads().stream()
                                .anyMatch(thread -> !thread.activeTasks().isEmpty()));
    }

    /** resync, as documented: with the processor's configuration, so as the processor's user, every rule. */
    private void resync(MongoCollection<Document> sessions, MongoCollection<Document> held) throws Exception {
        sessions.insertOne(expiring("resynced", ExpiryProbe.deadlineIn(3600)));
        held.insertOne(expiring("resynced", ExpiryProbe.deadlineIn(3600)));
        Path config = pipeline().propertiesFile(pipeline().processorSettings());
        CommandRun resync = CommandRun.of("resync", "--config", config.toString());
        assertThat(resync.exitCode()).as(resync.out() + resync.err()).isZero();
        for (Namespace namespace : List.of(SESSIONS, HELD)) {
            assertThat(resync.out()).contains("resync events published to topic " + namespace);
            try (TopicReader source =
                    new TopicReader(users().clientProperties(AclPlan.PROCESSOR_USER), namespace.toString())) {
                await("the resync event of resynced in " + namespace)
                        .atMost(WAIT)
                        .until(
                                () -> source.poll(record -> record.value().contains("\"resync\"")
                                        && record.key().contains("resynced")),
                                found -> !found.isEmpty());
            }
        }
        held.deleteOne(eq("_id", "resynced"));
    }

    /**
     * The source connector's heartbeat, which it sends once no change event went out for a heartbeat interval; the
     * processor reads its timestamp for the source's staleness. Read here by the set-up's super user, which counts
     * for no principal.
     */
    private void heartbeat() throws Exception {
        String topic = ConnectorConfigs.heartbeatTopic(SESSIONS.database());
        try (Admin admin = stack().kafka().setupAdmin()) {
            await("a heartbeat in " + topic)
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> admin.listOffsets(Map.of(new TopicPartition(topic, 0), OffsetSpec.latest()))
                                    .all()
                                    .get(30, TimeUnit.SECONDS)
                                    .values()
                                    .iterator()
                                    .next()
                                    .offset()
                            > 0);
        }
    }

    /**
     * Two documents of app.held arrive already due: the guard lets one go and holds the other until {@code approve},
     * run as the operators' user, releases it.
     */
    private void approve(MongoCollection<Document> held) throws Exception {
        Instant past = ExpiryProbe.deadlineIn(-3600);
        held.insertOne(expiring("due-1", past));
        held.insertOne(expiring("due-2", past));
        await("one let go, one held")
                .atMost(WAIT)
                .ignoreExceptionsInstanceOf(IOException.class)
                .until(() -> held.countDocuments() == 1 && heldCount() == 1);

        // As docs/deployment.md shows it: the processor's configuration, with the operators' JAAS line.
        CommandRun approve = CommandRun.of(
                "approve",
                "--config",
                pipeline().propertiesFile(pipeline().processorSettings()).toString(),
                "--rule",
                "held",
                "--set",
                "sasl.jaas.config=" + users().jaasReference(AclPlan.OPERATOR_USER),
                "--set",
                "config.providers.directory.param.allowed.paths=" + users().directory(AclPlan.OPERATOR_USER));
        assertThat(approve.exitCode()).as(approve.out() + approve.err()).isZero();
        await("the held document released and deleted").atMost(WAIT).until(() -> held.countDocuments() == 0);
    }

    private long heldCount() throws IOException, InterruptedException {
        Matcher matcher = HOLDS.matcher(http.get("/health/ready").body());
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }

    /**
     * A forged, unsigned command written to ttl.deletes with the processor's credentials (the only user that may
     * write there) is refused by the sink guard into ttl.sink.dlq, which the processor counts; a malformed change
     * event written as the source connectors' user is dead-lettered to ttl.dlq; operators read both, the audit, and
     * the expired record the processor wrote, as its own user, for the first expiry of the run.
     */
    private void deadLetters() throws Exception {
        try (KafkaProducer<String, String> processor = producer(AclPlan.PROCESSOR_USER)) {
            processor
                    .send(new ProducerRecord<>(
                            "ttl.deletes",
                            "{\"_id\": \"forged\"}",
                            "{\"_id\": {\"_id\": \"forged\"}, \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"}}"))
                    .get(30, TimeUnit.SECONDS);
        }
        await("the forged command counted by the processor")
                .atMost(WAIT)
                .until(() -> status().getDocument("sinkDeadLetters")
                                .getDouble("total")
                                .getValue()
                        >= 1);
        try (KafkaProducer<String, String> source = producer(AclPlan.SOURCE_USER)) {
            source.send(new ProducerRecord<>(SESSIONS.toString(), "{\"_id\": \"malformed\"}", "not a change event"))
                    .get(30, TimeUnit.SECONDS);
        }

        Properties props = users().clientProperties(AclPlan.OPERATOR_USER);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, AclPlan.OPERATOR_GROUP);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaConsumer<String, String> operator =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            operator.subscribe(List.of("ttl.dlq", "ttl.sink.dlq", AUDIT, EXPIRED));
            await("operators read the sink's dead letter, the processor's, the audit and an expired record")
                    .atMost(WAIT)
                    .until(() -> {
                        operator.poll(Duration.ofMillis(200)).forEach(read::add);
                        operator.commitSync();
                        return read.stream()
                                        .anyMatch(r -> r.topic().equals("ttl.sink.dlq")
                                                && header(r, "__connect.errors.exception.message")
                                                        .contains("refused by the sink guard"))
                                && read.stream()
                                        .anyMatch(r -> r.topic().equals("ttl.dlq")
                                                && r.value().contains("not a change event"))
                                && read.stream().anyMatch(r -> r.topic().equals(AUDIT))
                                && read.stream()
                                        .anyMatch(r -> r.topic().equals(EXPIRED)
                                                && r.key().contains("\"expires\"")
                                                && r.value().contains("\"EXPIRED\""));
                    });
        }
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** A collection dropped: the processor sends the drop through the control topic, and the task cancels it. */
    private void drop(MongoCollection<Document> held) {
        Instant farAhead = ExpiryProbe.deadlineIn(3600);
        held.insertOne(expiring("dropped", farAhead));
        ExpiryProbe probe = new ExpiryProbe(
                pipeline().mongo(), HELD, null, () -> pipeline().pipeline().processor());
        probe.awaitScheduled("dropped", farAhead);
        held.drop();
        await("the dropped collection's entry cancelled")
                .atMost(WAIT)
                .ignoreExceptions()
                .until(() -> probe.scheduledDeadline("dropped").isEmpty());
        assertThat(pipeline().collection(HELD).countDocuments(eq("_id", "dropped")))
                .isZero();
    }

    private KafkaProducer<String, String> producer(String user) {
        Properties props = users().clientProperties(user);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }
}
