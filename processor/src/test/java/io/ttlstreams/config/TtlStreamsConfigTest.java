package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.assertRejectedNaming;
import static io.ttlstreams.config.TestConfigs.config;
import static io.ttlstreams.config.TestConfigs.props;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.TtlRule;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TtlStreamsConfigTest {

    @Test
    void shouldApplyDefaults() {
        TtlStreamsConfig config = config();

        assertThat(config.deleteTopic()).isEqualTo("ttl.deletes");
        assertThat(config.auditTopic()).isEmpty();
        assertThat(config.dlqTopic()).isEqualTo("ttl.dlq");
        assertThat(config.punctuateInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.punctuateMaxEntries()).isEqualTo(100_000);
        assertThat(config.punctuateMaxDuration()).isEqualTo(Duration.ofMillis(1_000));
        assertThat(config.maxDeletesPerSecond()).isEmpty();
        assertThat(config.confirmTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.confirmMaxAttempts()).isEqualTo(10);
        assertThat(config.dryRun()).isFalse();
        assertThat(config.connectUrl()).isEmpty();
    }

    @Test
    void shouldReadEveryOption() {
        TtlStreamsConfig config = config(
                "ttl.delete.topic", "deletes",
                "ttl.audit.topic", "audit",
                "ttl.dlq.topic", "dlq",
                "ttl.punctuate.interval.ms", "250",
                "ttl.punctuate.max.entries", "5",
                "ttl.punctuate.max.duration.ms", "20",
                "ttl.max.deletes.per.second", "12",
                "ttl.confirm.timeout.ms", "5000",
                "ttl.confirm.max.attempts", "2",
                "ttl.dry.run", "true",
                "ttl.connect.url", "http://localhost:8083");

        assertThat(config.deleteTopic()).isEqualTo("deletes");
        assertThat(config.auditTopic()).contains("audit");
        assertThat(config.dlqTopic()).isEqualTo("dlq");
        assertThat(config.punctuateInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(config.punctuateMaxEntries()).isEqualTo(5);
        assertThat(config.punctuateMaxDuration()).isEqualTo(Duration.ofMillis(20));
        assertThat(config.maxDeletesPerSecond()).isEqualTo(OptionalInt.of(12));
        assertThat(config.confirmTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.confirmMaxAttempts()).isEqualTo(2);
        assertThat(config.dryRun()).isTrue();
        assertThat(config.connectUrl()).contains("http://localhost:8083");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "ttl.rules                      | ''",
                "ttl.rules                      | 'sessions,sessions'",
                "ttl.rules                      | 'ses.sions'",
                "ttl.source.topics              | 'a,a'",
                "ttl.source.topics              | 'bad topic'",
                "ttl.source.topic.prefix        | 'cdc/'",
                "ttl.source.topic.namespace.map | 'legacy'",
                "ttl.source.topic.namespace.map | 'legacy=app'",
                "ttl.source.topic.namespace.map | 'legacy=app.*'",
                "ttl.source.topic.namespace.map | 'bad topic=app.sessions'",
                "ttl.source.topic.namespace.map | 'a=app.x,a=app.y'",
                "ttl.event.time.max.future.skew.ms | -1",
                "ttl.event.time.max.future.skew.ms | 86400001",
                "ttl.event.time.max.lag.ms      | 59999",
                "ttl.delete.topic               | ''",
                "ttl.delete.topic               | 'dele tes'",
                "ttl.audit.topic                | '# audit'",
                "ttl.dlq.topic                  | '..'",
                "ttl.punctuate.interval.ms      | 0",
                "ttl.punctuate.interval.ms      | soon",
                "ttl.punctuate.max.entries      | 0",
                "ttl.punctuate.max.entries      | 1.5",
                "ttl.punctuate.max.duration.ms  | -1",
                "ttl.max.deletes.per.second     | 0",
                "ttl.max.deletes.per.second     | -5",
                "ttl.max.deletes.per.second     | NaN",
                "ttl.max.deletes.per.second     | 2.5",
                "ttl.confirm.timeout.ms         | 0",
                "ttl.confirm.max.attempts       | 0",
                "ttl.dry.run                    | maybe",
                "ttl.punctuate.max.duration.ms  | 5001",
                "ttl.max.deletes.per.second     | many",
                "ttl.connect.url                | 'localhost:8083'",
                "ttl.connect.url                | 'ftp://host'",
                "ttl.connect.url                | 'http://'",
            })
    void shouldRejectABadValueNamingTheOption(String option, String value) {
        assertRejectedNaming(option, option, value);
    }

    @Test
    void shouldSayARuleIsListedButNotDefinedWhenItHasNoOptions() {
        assertThatThrownBy(() -> TestConfigs.config("ttl.rules", "sessions,missing"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rule missing is listed in ttl.rules but not defined: set at least"
                        + " ttl.rule.missing.namespace, or remove it from the list")
                .hasMessageNotContaining("Missing required configuration");
    }

    @Test
    void shouldWarnWhenTwoRulesReadTheSameFieldOfOneNamespace() {
        TtlStreamsConfig config = TestConfigs.config(
                "ttl.rules", "sessions,later",
                "ttl.rule.later.namespace", "app.sessions",
                "ttl.rule.later.field", "expireAt",
                "ttl.rule.later.expire.after.seconds", "60");

        assertThat(config.warnings())
                .containsExactly("Rules sessions and later both read field expireAt of app.sessions: one of them"
                        + " never decides a deadline; merge them, or tell them apart with partial.filter");
        assertThat(TestConfigs.config().warnings()).isEmpty();
    }

    @Test
    void shouldRequireRules() {
        assertRejectedNaming("ttl.rules", "ttl.rules", null);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "ttl.rule.sessions.feild       | rule sessions has no option 'feild'; did you mean field?",
                "ttl.rule.undeclared.namespace | rule 'undeclared' is not listed in ttl.rules [sessions]",
                "ttl.punctuate.intervl.ms      | did you mean ttl.punctuate.interval.ms?",
                "ttl.sessions                  | ttl-streams has no such option",
                "ttl.rule.sessions             | rule options take the form ttl.rule.<name>.<option>",
                "embedded.kafka.port           | need module embedded on the classpath",
            })
    void shouldRejectUnknownOwnKeysNamingThem(String key, String explanation) {
        assertThatThrownBy(() -> config(key, "x"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Unknown configuration " + key + ": ")
                .hasMessageContaining(explanation);
    }

    @Test
    void shouldListTheRuleOptionsForAMisspelledOne() {
        assertThatThrownBy(() -> config("ttl.rule.sessions.zzz", "x"))
                .hasMessageContaining(
                        "'zzz'. Its options are namespace, mode, field, expire.after.seconds,"
                                + " field.format, partial.filter, document.ttl.field, modified.field,"
                                + " action, mark.field, delete.after.seconds, notice.before.seconds, expired.document, guard.max.due.on.arrival, guard.window.ms.");
    }

    @Test
    void shouldPassOtherKeysToKafkaStreamsWithDefaults() {
        Properties streams = config(
                        "bootstrap.servers", "broker:9092", "num.stream.threads", "2", "topology.optimization", "all")
                .streamsProperties();

        assertThat(streams)
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                        Map.entry("application.id", "ttl-streams"),
                        Map.entry("processing.guarantee", "exactly_once_v2"),
                        Map.entry("max.task.idle.ms", "-1"),
                        Map.entry("session.timeout.ms", "10000"),
                        Map.entry("heartbeat.interval.ms", "500"),
                        Map.entry("restore.consumer.fetch.max.wait.ms", "100"),
                        Map.entry("enable.metrics.push", "false"),
                        Map.entry("num.standby.replicas", "1"),
                        Map.entry("batch.size", "262144"),
                        Map.entry("bootstrap.servers", "broker:9092"),
                        Map.entry("num.stream.threads", "2"),
                        Map.entry("topology.optimization", "all")));
    }

    @Test
    void shouldLeaveStandbysToTheBrokersWhenTheGroupRunsTheStreamsProtocol() {
        Properties streams = config("group.protocol", "streams").streamsProperties();

        assertThat(streams)
                .as("under group.protocol=streams a group's standbys are the brokers' streams.num.standby.replicas")
                .doesNotContainKey("num.standby.replicas")
                .containsEntry("group.protocol", "streams");
        assertThat(config("group.protocol", "streams", "num.standby.replicas", "2")
                        .streamsProperties())
                .as("what the configuration sets is passed through, for Kafka Streams to warn about")
                .containsEntry("num.standby.replicas", "2");
    }

    @Test
    void shouldLetUsersOverrideTheStreamsDefaults() {
        Properties streams = config(
                        "application.id",
                        "ttl-prod",
                        "processing.guarantee",
                        "at_least_once",
                        "session.timeout.ms",
                        "30000",
                        "num.standby.replicas",
                        "0")
                .streamsProperties();

        assertThat(streams)
                .containsEntry("application.id", "ttl-prod")
                .containsEntry("processing.guarantee", "at_least_once")
                .containsEntry("session.timeout.ms", "30000")
                .containsEntry("num.standby.replicas", "0")
                .doesNotContainKey("bootstrap.servers");
    }

    @Test
    void shouldGiveTheStreamsProducerLargeBatchesWhenNoBatchSizeIsSet() {
        Map<String, Object> producer = producerOf(config("bootstrap.servers", "broker:9092"));

        assertThat(producer).containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    }

    @Test
    void shouldLetTheUsersBatchSizeWinWhenSetWithOrWithoutThePrefix() {
        assertThat(producerOf(config("bootstrap.servers", "broker:9092", "batch.size", "65536")))
                .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        assertThat(producerOf(config("bootstrap.servers", "broker:9092", "producer.batch.size", "16384")))
                .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "16384");
    }

    @Test
    void shouldHeartbeatTwiceASecondWithinTheSessionWhenNoHeartbeatIsSet() {
        StreamsConfig streams =
                new StreamsConfig(config("bootstrap.servers", "broker:9092").streamsProperties());
        Map<String, Object> consumer = streams.getMainConsumerConfigs("group", "client", 0);

        assertThat(consumer)
                .as("a member learns of a rebalance at its next heartbeat: every 500 ms, not Kafka's every 3 s")
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500")
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        assertThat(Integer.parseInt((String) consumer.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG)))
                .as("Kafka's advice: a session at least three heartbeats long")
                .isGreaterThanOrEqualTo(
                        3 * Integer.parseInt((String) consumer.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG)));
    }

    @Test
    void shouldLetTheUsersHeartbeatWinWhenSetWithOrWithoutThePrefix() {
        assertThat(new StreamsConfig(config("bootstrap.servers", "broker:9092", "heartbeat.interval.ms", "3000")
                                .streamsProperties())
                        .getMainConsumerConfigs("group", "client", 0))
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000");
        assertThat(new StreamsConfig(config(
                                        "bootstrap.servers",
                                        "broker:9092",
                                        "main.consumer.heartbeat.interval.ms",
                                        "2000")
                                .streamsProperties())
                        .getMainConsumerConfigs("group", "client", 0))
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "2000");
    }

    @Test
    void shouldShortenOnlyTheRestoreConsumersLongPollWhenNoFetchWaitIsSet() {
        StreamsConfig streams =
                new StreamsConfig(config("bootstrap.servers", "broker:9092").streamsProperties());

        assertThat(streams.getRestoreConsumerConfigs("client"))
                .as("a promoted standby's first fetch waits for the long poll in flight")
                .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        assertThat(streams.getMainConsumerConfigs("group", "client", 0))
                .doesNotContainKey(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
    }

    @Test
    void shouldLetTheUsersFetchWaitReachTheRestoreConsumerWhenSetWithOrWithoutAPrefix() {
        for (String key :
                List.of("fetch.max.wait.ms", "consumer.fetch.max.wait.ms", "restore.consumer.fetch.max.wait.ms")) {
            StreamsConfig streams = new StreamsConfig(
                    config("bootstrap.servers", "broker:9092", key, "250").streamsProperties());

            assertThat(streams.getRestoreConsumerConfigs("client"))
                    .as(key)
                    .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "250");
        }
    }

    @Test
    void shouldTurnClientTelemetryOffUnlessTheUserTurnsItOn() {
        assertThat(new StreamsConfig(config("bootstrap.servers", "broker:9092").streamsProperties())
                        .getMainConsumerConfigs("group", "client", 0))
                .containsEntry("enable.metrics.push", "false");
        assertThat(new StreamsConfig(config("bootstrap.servers", "broker:9092", "enable.metrics.push", "true")
                                .streamsProperties())
                        .getProducerConfigs("client"))
                .containsEntry("enable.metrics.push", "true");
    }

    /** What Kafka Streams hands its producer, from the configuration's streams properties. */
    private static Map<String, Object> producerOf(TtlStreamsConfig config) {
        return new StreamsConfig(config.streamsProperties()).getProducerConfigs("test-client");
    }

    @Test
    void shouldReadTheFailurePolicy() {
        TtlStreamsConfig config =
                config("ttl.thread.replacements.max", "0", "ttl.thread.replacements.window.ms", "60000");

        assertThat(config.threadReplacementsMax()).isZero();
        assertThat(config.threadReplacementsWindow()).isEqualTo(java.time.Duration.ofMinutes(1));
        assertThatThrownBy(() -> config("ttl.thread.replacements.max", "-1"))
                .hasMessageContaining("ttl.thread.replacements.max");
    }

    @Test
    void shouldBuildRulesInDeclarationOrder() {
        TtlStreamsConfig config = config(
                "ttl.rules",
                "sessions, carts",
                "ttl.rule.carts.namespace",
                "shop.carts",
                "ttl.rule.carts.mode",
                "last-modified",
                "ttl.rule.carts.expire.after.seconds",
                "3600");

        assertThat(config.rules().rules()).extracting(TtlRule::name).containsExactly("sessions", "carts");
    }

    @Test
    void shouldDeriveSourceTopicsFromRuleNamespaces() {
        TtlStreamsConfig config = config(
                "ttl.rules",
                "sessions,carts,logins",
                "ttl.rule.carts.namespace",
                "shop.carts",
                "ttl.rule.carts.field",
                "at",
                "ttl.rule.logins.namespace",
                "app.sessions",
                "ttl.rule.logins.field",
                "lastLogin");

        assertThat(config.sourceTopics()).containsExactly("app.sessions", "shop.carts");
    }

    @Test
    void shouldDeriveSourceTopicsWithTheConnectorsPrefix() {
        assertThat(config("ttl.source.topic.prefix", "cdc").sourceTopics()).containsExactly("cdc.app.sessions");
    }

    @Test
    void shouldDeriveMappedTopicsForMappedNamespaces() {
        TtlStreamsConfig config = config(
                "ttl.source.topic.prefix",
                "cdc",
                "ttl.source.topic.namespace.map",
                "sessions-v1=app.sessions, sessions-v2=app.sessions");

        assertThat(config.sourceTopics()).containsExactly("sessions-v1", "sessions-v2");
        assertThat(config.topicNamespaceMapping().namespaceOf("sessions-v2")).contains(Namespace.parse("app.sessions"));
        assertThat(config.topicNamespaceMapping().namespaceOf("cdc.app.sessions"))
                .contains(Namespace.parse("app.sessions"));
    }

    @Test
    void shouldPreferExplicitSourceTopics() {
        assertThat(config("ttl.source.topics", "t1, t2").sourceTopics()).containsExactly("t1", "t2");
    }

    @Test
    void shouldRequireExplicitTopicsForADatabaseWideRule() {
        assertRejectedNaming("ttl.source.topics", "ttl.rule.sessions.namespace", "app.*");
        assertThat(config("ttl.rule.sessions.namespace", "app.*", "ttl.source.topics", "app.sessions")
                        .sourceTopics())
                .containsExactly("app.sessions");
    }

    @Test
    void shouldRejectADerivedTopicThatKafkaWouldRefuse() {
        assertRejectedNaming("ttl.source.topics", "ttl.rule.sessions.namespace", "app.sessions@eu");
    }

    @Test
    void shouldRejectNonStringKeys() {
        Map<Object, Object> props = new HashMap<>(props());
        props.put(42, "x");

        assertThatThrownBy(() -> new TtlStreamsConfig(props)).isInstanceOf(ConfigException.class);
    }

    @Test
    void shouldAcceptTypedValues() {
        Map<String, Object> props = props();
        props.put("ttl.punctuate.interval.ms", 200L);
        props.put("ttl.max.deletes.per.second", 3);

        TtlStreamsConfig config = new TtlStreamsConfig(props);

        assertThat(config.punctuateInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.maxDeletesPerSecond()).isEqualTo(OptionalInt.of(3));
    }

    @Test
    void shouldTreatABlankAuditTopicAsDisabled() {
        assertThat(config("ttl.audit.topic", "  ").auditTopic()).isEqualTo(Optional.empty());
    }

    @Test
    void shouldFitThePunctuationBudgetInTheTransactionTimeoutUnderExactlyOnce() {
        assertThat(config("ttl.punctuate.max.duration.ms", "5000").punctuateMaxDuration())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(config("ttl.punctuate.max.duration.ms", "9000", "producer.transaction.timeout.ms", "20000")
                        .punctuateMaxDuration())
                .isEqualTo(Duration.ofSeconds(9));
        assertThat(config("ttl.punctuate.max.duration.ms", "9000", "processing.guarantee", "at_least_once")
                        .punctuateMaxDuration())
                .isEqualTo(Duration.ofSeconds(9));
        assertThatThrownBy(() -> config("ttl.punctuate.max.duration.ms", "9000"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.punctuate.max.duration.ms")
                .hasMessageContaining("transaction.timeout.ms (10000 ms)");
    }
}
