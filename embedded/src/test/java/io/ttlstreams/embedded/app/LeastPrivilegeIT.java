package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.platform.AclPlan;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LeastPrivilegeScenarios} with Kafka Streams' classic group protocol, and what does not depend on the group
 * protocol: each principal, trying what the plan does not grant it, gets the broker's authorization error, and the
 * broker logs the refusal; the broker holds exactly the plan's ACLs; a processor that lacks one stops with exit code
 * 2 and a line naming it, at start-up or while it runs.
 */
class LeastPrivilegeIT extends LeastPrivilegeScenarios {

    static final AuthorizationLog AUTHORIZATIONS = new AuthorizationLog();

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE =
            EmbeddedPipelineExtension.with(settings()).watchedBy(AUTHORIZATIONS);

    LeastPrivilegeIT() {
        super(AUTHORIZATIONS, PIPELINE);
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
        int before = authorizations().refusals().size();
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
                                .subList(before, authorizations().refusals().size())
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
            Process run = pipeline().startRun(pipeline().instanceSettings(), log);
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
        EmbeddedPipeline pipeline = pipeline().pipeline();
        MongoCollection<Document> sessions = pipeline().collection(SESSIONS);
        Path log = dir.resolve("run.log");
        pipeline.stopProcessor();
        Instant deadline;
        try {
            Process run = pipeline().startRun(pipeline().instanceSettings(), log, "--status-interval", "1");
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
