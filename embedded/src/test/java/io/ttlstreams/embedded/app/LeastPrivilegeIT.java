package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 30 on the embedded pipeline with {@code embedded.kafka.security=scram-acls}: a broker that authenticates
 * every client with SCRAM and enforces exactly the ACLs {@code ttl-streams platform} renders, each part of the stack
 * logging in as its own user.
 *
 * <ul>
 *   <li>Positive: documents expire at their deadline and deletes are confirmed; a restarted processor and a second
 *       instance work (group, transactional ids); {@code resync} publishes as the processor; {@code approve} decides
 *       as the operators' user; a forged command is dead-lettered by the sink and counted by the processor;
 *       operators read the dead letters, the audit and the expired records the processor wrote; a dropped collection reaches every task through the control
 *       topic.</li>
 *   <li>Every ACL needed: the broker's authorizer logs every access it grants during the positive run; for each ACL
 *       binding of the plan, those requests are replayed through Kafka's {@code StandardAuthorizer} with the plan less
 *       that binding, and at least one must be refused, one for that very operation, named by principal, operation
 *       and resource.</li>
 *   <li>Negative: each principal, trying what the plan does not grant it, gets the broker's authorization error, and
 *       the broker logs the refusal.</li>
 * </ul>
 *
 * <p>The positive run happens once, in whichever test of the class comes first (each needs it), and its grants are
 * frozen before anything is tried on purpose that the plan refuses.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class LeastPrivilegeIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace HELD = Namespace.parse("app.held");
    private static final String AUDIT = "ttl.audit";
    private static final String EXPIRED = "ttl.expired";
    private static final Duration WAIT = ExpiryProbe.WAIT;
    private static final Pattern HOLDS = Pattern.compile("rule held holds (\\d+) documents");

    @RegisterExtension
    @Order(1)
    static final AuthorizationLog AUTHORIZATIONS = new AuthorizationLog();

    @RegisterExtension
    @Order(2)
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(settings());

    private final OperationsHttp http = new OperationsHttp(PIPELINE::pipeline);

    /** The positive run's outcome, once it has run: null before, else its failure or nothing. */
    private Optional<Throwable> positiveRun;

    /**
     * Two rules: app.sessions, and app.held whose guard holds a second document due on arrival; auditing and expired
     * records on, so that the audit's and the expired topic's ACLs are the enforced ones too; one partition per topic.
     */
    private static Map<String, String> settings() {
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

    private EmbeddedStack stack() {
        return PIPELINE.pipeline().stack();
    }

    private KafkaUsers users() {
        return stack().kafkaUsers().orElseThrow();
    }

    private AclPlan plan() {
        return users().plan();
    }

    @Test
    void shouldRunThePipelineWhenEveryPartLogsInAsItsOwnUser() throws Throwable {
        Optional<Throwable> failure = positiveRun();
        if (failure.isPresent()) {
            throw failure.get();
        }
        assertThat(PIPELINE.pipeline().processor().security().describe())
                .isEqualTo("SASL_PLAINTEXT, SCRAM-SHA-512, as User:" + AclPlan.PROCESSOR_USER);
        // Who the broker saw: every part as its own user, and nothing of the stack's as the super user.
        List<String> principals = AUTHORIZATIONS.grants().stream()
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
                AUTHORIZATIONS.refusedWithout(acl.binding(), plan().bindings()).stream()
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

    /** What a principal may not do, and the call that tries it. */
    record ForbiddenAct(String user, String act, Attempt attempt) {
        @Override
        public String toString() {
            return "User:" + user + " cannot " + act;
        }
    }

    /** A client call as a user, with that user's client settings. */
    interface Attempt {
        void run(Properties client) throws Exception;
    }

    List<ForbiddenAct> forbiddenActs() {
        String heartbeat = "__mongodb_heartbeats." + SESSIONS.database();
        String changelog = "ttl-streams-schedule-changelog";
        List<ForbiddenAct> acts = new ArrayList<>();
        acts.add(new ForbiddenAct(AclPlan.SOURCE_USER, "write ttl.deletes", write("ttl.deletes")));
        acts.add(new ForbiddenAct(AclPlan.SOURCE_USER, "write ttl.control", write("ttl.control")));
        acts.add(new ForbiddenAct(AclPlan.SINK_USER, "write source topic app.sessions", write(SESSIONS.toString())));
        acts.add(new ForbiddenAct(AclPlan.SINK_USER, "write ttl.control", write("ttl.control")));
        acts.add(new ForbiddenAct(AclPlan.SINK_USER, "write ttl.deletes", write("ttl.deletes")));
        acts.add(new ForbiddenAct(AclPlan.SINK_USER, "write the expired records " + EXPIRED, write(EXPIRED)));
        acts.add(new ForbiddenAct(
                AclPlan.PROCESSOR_USER, "write the source connectors' heartbeat topic " + heartbeat, write(heartbeat)));
        acts.add(new ForbiddenAct(AclPlan.PROCESSOR_USER, "create an ACL", client -> {
            try (Admin admin = Admin.create(client)) {
                admin.createAcls(List.of(new AclBinding(
                                new ResourcePattern(ResourceType.TOPIC, "ttl.deletes", PatternType.LITERAL),
                                new AccessControlEntry(
                                        "User:" + AclPlan.SOURCE_USER,
                                        "*",
                                        AclOperation.WRITE,
                                        AclPermissionType.ALLOW))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
        }));
        acts.add(new ForbiddenAct(AclPlan.PROCESSOR_USER, "delete topic ttl.deletes", deleteTopic("ttl.deletes")));
        acts.add(new ForbiddenAct(
                AclPlan.PROCESSOR_USER, "delete its own changelog " + changelog, deleteTopic(changelog)));
        acts.add(new ForbiddenAct(AclPlan.PROCESSOR_USER, "create topic ttl.extra", client -> {
            try (Admin admin = Admin.create(client)) {
                admin.createTopics(List.of(new NewTopic("ttl.extra", 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
        }));
        for (String topic :
                List.of("ttl.deletes", SESSIONS.toString(), heartbeat, "ttl.dlq", "ttl.sink.dlq", AUDIT, EXPIRED)) {
            acts.add(new ForbiddenAct(AclPlan.OPERATOR_USER, "write " + topic + " (only ttl.control)", write(topic)));
        }
        acts.add(new ForbiddenAct(AclPlan.CONNECT_USER, "write ttl.deletes", write("ttl.deletes")));
        acts.add(new ForbiddenAct(AclPlan.CONNECT_USER, "write source topic app.sessions", write(SESSIONS.toString())));
        return acts;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forbiddenActs")
    void shouldRefuseWhatThePlanDoesNotGrant(ForbiddenAct act) {
        afterThePositiveRun("the positive run, frozen before anything is tried on purpose");
        int before = AUTHORIZATIONS.refusals().size();
        Throwable error = catchThrowable(() -> act.attempt().run(users().clientProperties(act.user())));
        Throwable denied = authorizationError(error);
        assertThat(denied)
                .as("the broker's authorization error when %s (got %s)", act, error)
                .isNotNull();
        AuthorizationLog.Decision refusal = await("the broker's refusal of " + act)
                .atMost(WAIT)
                .until(
                        () -> AUTHORIZATIONS
                                .refusals()
                                .subList(before, AUTHORIZATIONS.refusals().size())
                                .stream()
                                .filter(decision -> decision.principal().equals("User:" + act.user()))
                                .findFirst(),
                        Optional::isPresent)
                .orElseThrow();
        System.out.printf(
                "[least-privilege] %s: %s: %s; the broker: %s%n",
                act, denied.getClass().getSimpleName(), denied.getMessage(), refusal);
    }

    @Test
    void shouldHoldExactlyThePlansAclsNoneOfThemWideWhenTheStackRuns() throws Exception {
        List<AclBinding> held;
        try (Admin admin = stack().kafka().setupAdmin()) {
            held = List.copyOf(admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS));
        }
        assertThat(held).containsExactlyInAnyOrderElementsOf(plan().bindings());
        assertThat(held)
                .as("the expired records' ACLs, each taken away in turn by the replay of the run's requests")
                .contains(
                        planBinding(AclPlan.PROCESSOR_USER, AclOperation.WRITE, EXPIRED),
                        planBinding(AclPlan.OPERATOR_USER, AclOperation.READ, EXPIRED));
        List<String> topics = new ArrayList<>();
        try (Admin admin = stack().kafka().setupAdmin()) {
            topics.addAll(admin.listTopics().names().get(30, TimeUnit.SECONDS));
        }
        for (AclBinding binding : held) {
            ResourcePattern pattern = binding.pattern();
            assertThat(pattern.name()).as("%s names its resource", binding).isNotIn("*", "");
            assertThat(binding.entry().operation()).as("%s", binding).isNotIn(AclOperation.ALL, AclOperation.ANY);
            assertThat(binding.entry().host()).isEqualTo("*");
            if (pattern.patternType() == PatternType.PREFIXED && pattern.resourceType() == ResourceType.TOPIC) {
                String owner = binding.entry().principal();
                for (AclBinding other : held) {
                    if (!other.entry().principal().equals(owner)
                            && other.pattern().resourceType() == ResourceType.TOPIC) {
                        assertThat(other.pattern().name())
                                .as(
                                        "%s's prefix covers %s's resource",
                                        owner, other.entry().principal())
                                .doesNotStartWith(pattern.name());
                    }
                }
                // Every topic under the prefix is its principal's own: Kafka Streams' or Connect's internal ones.
                assertThat(topics.stream().filter(topic -> topic.startsWith(pattern.name())))
                        .as("topics under %s*", pattern.name())
                        .allSatisfy(topic -> assertThat(topic)
                                .matches(
                                        owner.endsWith(AclPlan.PROCESSOR_USER)
                                                ? "ttl-streams-.+-changelog"
                                                : "ttl-connect-(configs|offsets|status)"));
            }
        }
    }

    /**
     * A processor started ({@code run --config}, a JVM of its own) on a cluster that lacks one ACL of the plan, the one
     * its start-up check of declared topics needs, stops with exit code 2 and a line naming the principal, the
     * operation, the topic and the plan's grant, pointing at {@code ttl-streams platform}.
     */
    @Test
    void shouldStopAtStartUpNamingTheMissingAclWhenThePlanLacksOne(@TempDir Path dir) throws Exception {
        afterThePositiveRun("the positive run, frozen before an ACL is taken away");
        AclBinding missing = planBinding(AclPlan.PROCESSOR_USER, AclOperation.DESCRIBE_CONFIGS, "ttl.deletes");
        Path log = dir.resolve("run.log");
        try (AclTakenAway taken = new AclTakenAway(missing)) {
            Process run = PIPELINE.startRun(PIPELINE.instanceSettings(), log);
            assertStopsWithCode2(run, log);
        }
        String line = errorLine(read(log));
        System.out.println("[least-privilege] start-up without " + new PlanAcl(missing) + ": " + line);
        assertThat(line)
                .contains("Kafka refused User:ttl-processor DescribeConfigs on topic ttl.deletes")
                .contains("The plan grants User:ttl-processor Write, DescribeConfigs on topic ttl.deletes")
                .contains("ttl-streams platform");
    }

    /**
     * A running processor that loses an ACL of the plan (the one that lets it write delete commands) stops at the
     * first command, without replacing its stream thread, with exit code 2 and the line naming what is missing; once
     * the ACL is back, the document is deleted.
     */
    @Test
    void shouldStopNamingTheMissingAclWhenOneGoesMissingWhileItRuns(@TempDir Path dir) throws Exception {
        afterThePositiveRun("the positive run, frozen before an ACL is taken away");
        AclBinding missing = planBinding(AclPlan.PROCESSOR_USER, AclOperation.WRITE, "ttl.deletes");
        EmbeddedPipeline pipeline = PIPELINE.pipeline();
        MongoCollection<Document> sessions = PIPELINE.collection(SESSIONS);
        Path log = dir.resolve("run.log");
        pipeline.stopProcessor();
        Instant deadline;
        try {
            Process run = PIPELINE.startRun(PIPELINE.instanceSettings(), log, "--status-interval", "1");
            try {
                await("the instance running alone")
                        .atMost(Duration.ofMinutes(2))
                        .until(() -> !run.isAlive() || read(log).contains("active=0_0"));
                assertThat(run.isAlive())
                        .as("running; it printed:%n%s", read(log))
                        .isTrue();
                try (AclTakenAway taken = new AclTakenAway(missing)) {
                    deadline = ExpiryProbe.deadlineIn(1);
                    sessions.insertOne(expiring("went-missing", deadline));
                    assertStopsWithCode2(run, log);
                }
            } finally {
                run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } finally {
            pipeline.startProcessor();
        }
        String printed = read(log);
        String line = errorLine(printed);
        System.out.println("[least-privilege] at run time without " + new PlanAcl(missing) + ": " + line);
        assertThat(line)
                .contains("Kafka refused User:ttl-processor access on topic ttl.deletes")
                .contains("The plan grants User:ttl-processor Write, DescribeConfigs on topic ttl.deletes")
                .contains("ttl-streams platform");
        assertThat(printed).doesNotContain("replacing it");
        ExpiryProbe.assertExpireOnTime(sessions, List.of("went-missing"), deadline, WAIT);
    }

    /** The plan's binding of {@code user}'s {@code operation} on topic {@code topic}. */
    private AclBinding planBinding(String user, AclOperation operation, String topic) {
        return plan().bindings().stream()
                .filter(binding -> binding.entry().principal().equals("User:" + user)
                        && binding.entry().operation() == operation
                        && binding.pattern().name().equals(topic))
                .findFirst()
                .orElseThrow();
    }

    /** Fails unless the positive run, which a test needs before it, passed. */
    private void afterThePositiveRun(String why) {
        assertThat(positiveRun()).as(why).isEmpty();
    }

    /** Waits for {@code run} to stop by itself, with the exit code of a bad configuration. */
    private static void assertStopsWithCode2(Process run, Path log) throws Exception {
        assertThat(run.waitFor(2, TimeUnit.MINUTES))
                .as("stopped; it printed:%n%s", read(log))
                .isTrue();
        assertThat(run.exitValue()).as("exit code; it printed:%n%s", read(log)).isEqualTo(2);
    }

    /** The line {@code run} printed on its way out. */
    private static String errorLine(String printed) {
        return printed.lines()
                .filter(text -> text.startsWith("ttl-streams run: "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no error line in:\n" + printed));
    }

    private static String read(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    /** One ACL of the plan taken away from the broker, and given back on close. */
    private final class AclTakenAway implements AutoCloseable {

        private final AclBinding binding;

        AclTakenAway(AclBinding binding) throws Exception {
            this.binding = binding;
            change(admin -> admin.deleteAcls(List.of(binding.toFilter())).all().get(30, TimeUnit.SECONDS), false);
        }

        @Override
        public void close() throws Exception {
            change(admin -> admin.createAcls(List.of(binding)).all().get(30, TimeUnit.SECONDS), true);
        }

        private void change(AdminCall call, boolean present) throws Exception {
            try (Admin admin = stack().kafka().setupAdmin()) {
                call.run(admin);
                await("the broker " + (present ? "enforcing " : "without ") + new PlanAcl(binding))
                        .atMost(WAIT)
                        .until(() -> admin.describeAcls(binding.toFilter())
                                        .values()
                                        .get(30, TimeUnit.SECONDS)
                                        .isEmpty()
                                != present);
            }
        }
    }

    private interface AdminCall {
        void run(Admin admin) throws Exception;
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
                AUTHORIZATIONS.stopCollectingGrants();
            }
        }
        return positiveRun;
    }

    private void runPositiveChecks() throws Exception {
        MongoCollection<Document> sessions = PIPELINE.collection(SESSIONS);
        MongoCollection<Document> held = PIPELINE.collection(HELD);

        AUTHORIZATIONS.during("expiry");
        Instant deadline = ExpiryProbe.deadlineIn(3);
        sessions.insertOne(expiring("expires", deadline));
        ExpiryProbe.assertExpireOnTime(sessions, List.of("expires"), deadline, ExpiryProbe.WITHIN);
        await("the delete confirmed")
                .atMost(WAIT)
                .until(() -> status().getDouble("deletesConfirmed").getValue() >= 1);

        AUTHORIZATIONS.during("restart and a second instance");
        restartAndSecondInstance(sessions);

        AUTHORIZATIONS.during("resync");
        resync(sessions, held);

        AUTHORIZATIONS.during("approve");
        approve(held);

        AUTHORIZATIONS.during("dead letters");
        deadLetters();

        AUTHORIZATIONS.during("drop");
        drop(held);

        AUTHORIZATIONS.during("heartbeat");
        heartbeat();
    }

    private static Document expiring(String id, Instant deadline) {
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
        EmbeddedPipeline pipeline = PIPELINE.pipeline();
        pipeline.stopProcessor();
        pipeline.startProcessor();
        expireNow(sessions, "after-restart");

        TtlStreamsApp second = new TtlStreamsApp(new TtlStreamsConfig(PIPELINE.instanceSettings())).start();
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

    private static void expireNow(MongoCollection<Document> collection, String id) {
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
        Path config = PIPELINE.propertiesFile(PIPELINE.processorSettings());
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
                PIPELINE.propertiesFile(PIPELINE.processorSettings()).toString(),
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
                PIPELINE.mongo(), HELD, null, () -> PIPELINE.pipeline().processor());
        probe.awaitScheduled("dropped", farAhead);
        held.drop();
        await("the dropped collection's entry cancelled")
                .atMost(WAIT)
                .ignoreExceptions()
                .until(() -> probe.scheduledDeadline("dropped").isEmpty());
        assertThat(PIPELINE.collection(HELD).countDocuments(eq("_id", "dropped")))
                .isZero();
    }

    private KafkaProducer<String, String> producer(String user) {
        Properties props = users().clientProperties(user);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    // --- Forbidden acts -------------------------------------------------------------------------------------------

    private static Attempt write(String topic) {
        return client -> {
            Properties props = new Properties();
            props.putAll(client);
            // A plain producer: no idempotence, so that the write itself is what the broker decides on.
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
            props.put(ProducerConfig.ACKS_CONFIG, "1");
            props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, "{\"_id\": \"forbidden\"}", "{}"))
                        .get(30, TimeUnit.SECONDS);
            }
        };
    }

    private static Attempt deleteTopic(String topic) {
        return client -> {
            try (Admin admin = Admin.create(client)) {
                admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            }
        };
    }

    /** The authorization error in {@code error}'s chain, if any. */
    private static Throwable authorizationError(Throwable error) {
        Throwable cause = error;
        for (int i = 0; cause != null && i < 10; i++, cause = cause.getCause()) {
            if (cause instanceof AuthorizationException) {
                return cause;
            }
            if (cause instanceof ExecutionException && cause.getCause() == null) {
                return null;
            }
        }
        return null;
    }
}
