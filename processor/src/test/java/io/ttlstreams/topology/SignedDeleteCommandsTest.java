package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.InvalidDeleteCommandException;
import io.ttlstreams.contract.SignatureVerifier;
import io.ttlstreams.contract.SigningKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.test.TestRecord;
import org.assertj.core.api.Assertions;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The deletes sink as the sink guard sees it: every command the topology emits is signed with {@code
 * ttl.command.signing.key}, and every form of command it emits passes the contract's grammar. The commands come from
 * the real path: change event, {@code TtlRules.evaluate}, the schedule, the punctuator, the serializer.
 */
class SignedDeleteCommandsTest {

    private static final String SECRET = "a-signing-secret-for-the-topology-tests";
    private static final BsonString ID = new BsonString("d1");

    private static BsonDateTime date(Duration offset) {
        return new BsonDateTime(START.plus(offset).toEpochMilli());
    }

    /** The commands the topology emits for one document, with {@code rule} and the signing key configured. */
    private static List<TestRecord<String, String>> commandsFor(
            Map<String, String> rule, String namespace, BsonValue id, BsonDocument document) {
        Map<String, String> settings = new HashMap<>(rule);
        settings.put("ttl.command.signing.key", SECRET);
        try (TopologyFixture fixture = new TopologyFixture(settings)) {
            fixture.input(namespace)
                    .pipeInput(ChangeEvents.key(id), new ChangeEvents(namespace, START).insert(id, document));
            fixture.wallClockAt(Duration.ofDays(1));
            return fixture.deletes();
        }
    }

    private static byte[] header(TestRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : header.value();
    }

    private static Map<String, String> fieldRule(String field, String... extra) {
        Map<String, String> rule = TestConfigs.settings(extra);
        rule.put("ttl.rule.sessions.field", field);
        return rule;
    }

    private static Map<String, String> lastModifiedRule() {
        return TopologyFixture.eventsSettings(
                "ttl.rule.events.expire.after.seconds", "10", "ttl.rule.events.document.ttl.field", "meta.ttl");
    }

    @Test
    void shouldSignEveryDeleteCommandSoThatTheSinkCanVerifyIt() {
        List<TestRecord<String, String>> commands = commandsFor(
                fieldRule("expireAt"), "app.sessions", ID, new BsonDocument("expireAt", date(Duration.ofSeconds(5))));

        assertThat(commands).hasSize(1);
        TestRecord<String, String> command = commands.get(0);
        SigningKey key = SigningKey.of(SECRET);
        assertThat(new String(header(command, SigningKey.KEY_ID_HEADER), StandardCharsets.US_ASCII))
                .isEqualTo(key.id());
        new SignatureVerifier(List.of(key))
                .verify(
                        command.key().getBytes(StandardCharsets.UTF_8),
                        command.value().getBytes(StandardCharsets.UTF_8),
                        header(command, SigningKey.KEY_ID_HEADER),
                        header(command, SigningKey.SIGNATURE_HEADER));
        Assertions.assertThatThrownBy(
                        () -> new SignatureVerifier(List.of(SigningKey.of("another-secret-that-is-long-enough-to-use")))
                                .verify(
                                        command.key().getBytes(StandardCharsets.UTF_8),
                                        command.value().getBytes(StandardCharsets.UTF_8),
                                        header(command, SigningKey.KEY_ID_HEADER),
                                        header(command, SigningKey.SIGNATURE_HEADER)))
                .isInstanceOf(InvalidDeleteCommandException.class);
        assertThat(command.headers().headers(SigningKey.SIGNATURE_HEADER)).hasSize(1);
    }

    @Test
    void shouldIssueEachCommandAtThePunctuationThatSendsItAndAReemittedOneLater() {
        Map<String, String> settings = new HashMap<>(fieldRule("expireAt"));
        settings.put("ttl.command.signing.key", SECRET);
        settings.put("ttl.confirm.timeout.ms", "10000");
        SignatureVerifier verifier = new SignatureVerifier(List.of(SigningKey.of(SECRET)));
        try (TopologyFixture fixture = new TopologyFixture(settings)) {
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            new ChangeEvents("app.sessions", START)
                                    .insert(ID, new BsonDocument("expireAt", date(Duration.ofSeconds(5)))));
            fixture.wallClockAt(Duration.ofMillis(7_250));
            TestRecord<String, String> first = fixture.deletes().get(0);
            fixture.wallClockAt(Duration.ofMillis(17_500));
            List<TestRecord<String, String>> again = fixture.deletes();

            assertThat(again).as("re-emitted once the confirmation timed out").hasSize(1);
            DeleteCommand sent = verifiedCommand(verifier, first);
            DeleteCommand resent = verifiedCommand(verifier, again.get(0));
            assertThat(sent.issuedAtMillis()).hasValue(START.plusMillis(7_250).toEpochMilli());
            assertThat(sent.issuedAtMillis()).hasValue(first.timestamp());
            assertThat(resent.issuedAtMillis())
                    .hasValue(START.plusMillis(17_500).toEpochMilli());
            assertThat(resent.filter()).as("the same filter").isEqualTo(sent.filter());
            assertThat(header(again.get(0), SigningKey.SIGNATURE_HEADER))
                    .as("signed anew")
                    .isNotEqualTo(header(first, SigningKey.SIGNATURE_HEADER));
        }
    }

    /** The command of {@code record}, after checking its signature as the sink guard does. */
    private static DeleteCommand verifiedCommand(SignatureVerifier verifier, TestRecord<String, String> record) {
        verifier.verify(
                record.key().getBytes(StandardCharsets.UTF_8),
                record.value().getBytes(StandardCharsets.UTF_8),
                header(record, SigningKey.KEY_ID_HEADER),
                header(record, SigningKey.SIGNATURE_HEADER));
        return DeleteCommand.parse(record.key(), record.value());
    }

    @Test
    void shouldLeaveCommandsUnsignedWithoutAKey() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            new ChangeEvents("app.sessions", START)
                                    .insert(ID, new BsonDocument("expireAt", date(Duration.ZERO))));
            fixture.wallClockAt(Duration.ofSeconds(1));

            assertThat(fixture.deletes())
                    .singleElement()
                    .satisfies(
                            command -> assertThat(command.headers().toArray()).isEmpty());
        }
    }

    static Stream<Arguments> emittedForms() {
        BsonDateTime due = date(Duration.ofSeconds(5));
        return Stream.of(
                Arguments.of("date field", fieldRule("expireAt"), "app.sessions", new BsonDocument("expireAt", due)),
                Arguments.of(
                        "dotted path",
                        fieldRule("session.expiresAt"),
                        "app.sessions",
                        new BsonDocument("session", new BsonDocument("expiresAt", due))),
                Arguments.of(
                        "array of dates",
                        fieldRule("expireAt"),
                        "app.sessions",
                        new BsonDocument("expireAt", new BsonArray(List.of(due, new BsonString("x"))))),
                Arguments.of(
                        "path across an array of subdocuments",
                        fieldRule("items.at"),
                        "app.sessions",
                        BsonDocument.parse("{\"items\": [{\"at\": {\"$date\": \"2026-01-01T00:00:05Z\"}},"
                                + " {\"at\": {\"$date\": \"2026-01-01T00:00:09Z\"}}]}")),
                Arguments.of(
                        "operator-like value",
                        fieldRule("expireAt", "ttl.rule.sessions.field.format", "epoch-millis"),
                        "app.sessions",
                        new BsonDocument("expireAt", new BsonInt64(START.toEpochMilli()))),
                Arguments.of(
                        "partial filter",
                        fieldRule(
                                "expireAt",
                                "ttl.rule.sessions.partial.filter",
                                "{\"status\": \"closed\", \"n\": {\"$gte\": 1, \"$lt\": 9}, \"t\": {\"$type\": \"date\"},"
                                        + " \"k\": {\"$in\": [1, 2]}, \"e\": {\"$exists\": true},"
                                        + " \"$and\": [{\"m\": {\"$eq\": \"x\"}}]}"),
                        "app.sessions",
                        BsonDocument.parse("{\"status\": \"closed\", \"n\": 3, \"k\": 2, \"e\": 0, \"m\": \"x\"}")
                                .append("expireAt", due)
                                .append("t", due)),
                Arguments.of(
                        "last-modified, ttl present",
                        lastModifiedRule(),
                        "app.events",
                        BsonDocument.parse("{\"meta\": {\"ttl\": 20}}")),
                Arguments.of(
                        "last-modified, ttl absent",
                        lastModifiedRule(),
                        "app.events",
                        BsonDocument.parse("{\"meta\": {}}")),
                Arguments.of(
                        "last-modified, several ttl values",
                        lastModifiedRule(),
                        "app.events",
                        BsonDocument.parse("{\"meta\": [{\"ttl\": 20}, {\"ttl\": 30}]}")),
                Arguments.of(
                        "last-modified, ttl holding an operator-like document",
                        lastModifiedRule(),
                        "app.events",
                        BsonDocument.parse("{\"meta\": {\"ttl\": {\"$gt\": \"\"}}}")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("emittedForms")
    void shouldEmitOnlyCommandsThatTheSinkGrammarAccepts(
            String form, Map<String, String> rule, String namespace, BsonDocument document) {
        List<TestRecord<String, String>> commands = commandsFor(rule, namespace, ID, document);

        assertThat(commands).as(form).hasSize(1);
        DeleteCommand parsed =
                DeleteCommand.parse(commands.get(0).key(), commands.get(0).value());
        assertThat(parsed.valueJson()).isEqualTo(commands.get(0).value());
    }

    @ParameterizedTest
    @MethodSource("io.ttlstreams.topology.TtlTopologyTest#idTypes")
    void shouldEmitCommandsForEveryIdTypeThatTheSinkGrammarAccepts(BsonValue id) {
        List<TestRecord<String, String>> commands = commandsFor(
                fieldRule("expireAt"), "app.sessions", id, new BsonDocument("expireAt", date(Duration.ZERO)));

        assertThat(commands).hasSize(1);
        assertThat(DeleteCommand.parse(commands.get(0).key(), commands.get(0).value())
                        .documentKey())
                .isEqualTo(new BsonDocument("_id", id));
    }

    @Test
    void shouldKeepTheKeysLiteralWhenTheRulesFieldIsAShardKeyField() {
        BsonDocument documentKey = new BsonDocument("expireAt", date(Duration.ZERO)).append("_id", new BsonInt32(1));
        BsonDocument document = new BsonDocument("_id", new BsonInt32(1)).append("expireAt", date(Duration.ZERO));
        Map<String, String> settings = new HashMap<>(fieldRule("expireAt"));
        settings.put("ttl.command.signing.key", SECRET);
        List<TestRecord<String, String>> commands;
        try (TopologyFixture fixture = new TopologyFixture(settings)) {
            fixture.input("app.sessions")
                    .pipeInput(
                            documentKey.toJson(),
                            new ChangeEvents("app.sessions", START).insert(documentKey, document));
            fixture.wallClockAt(Duration.ofDays(1));
            commands = fixture.deletes();
        }

        assertThat(commands).hasSize(1);
        DeleteCommand parsed =
                DeleteCommand.parse(commands.get(0).key(), commands.get(0).value());
        assertThat(parsed.filter()).isEqualTo(documentKey);
    }
}
