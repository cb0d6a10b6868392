package io.ttlstreams.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.SigningKey;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeleteCommandGuardTest {

    private static final String SECRET = "the-current-signing-secret-32-bytes+";
    private static final String PREVIOUS_SECRET = "the-previous-signing-secret-32-bytes";
    private static final SigningKey KEY = SigningKey.of(SECRET);
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:10Z");
    private static final String PREFIX = "Delete command refused by the sink guard: ";

    private static Map<String, Object> settings(Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("signing.key", SECRET);
        props.put("allowed.namespaces", "app.sessions,audit.*");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    private static DeleteCommandGuard<SinkRecord> guard(Map<String, Object> settings) {
        DeleteCommandGuard<SinkRecord> guard = new DeleteCommandGuard<>(Clock.fixed(NOW, ZoneOffset.UTC));
        guard.configure(settings);
        return guard;
    }

    /** A command issued at the guard's {@link #NOW}. */
    private static DeleteCommand command(String namespace, String id, long deadlineMillis) {
        return command(namespace, id, deadlineMillis, OptionalLong.of(NOW.toEpochMilli()));
    }

    private static DeleteCommand command(String namespace, String id, long deadlineMillis, OptionalLong issuedAt) {
        BsonDocument key = new BsonDocument("_id", new BsonString(id));
        BsonDocument filter = key.clone().append("expireAt", BsonDocument.parse("{\"$eq\": {\"$date\": 0}}"));
        return new DeleteCommand(key, filter, Namespace.parse(namespace), "sessions", deadlineMillis, issuedAt);
    }

    /** A command for app.sessions, due at 0, issued {@code offsetMillis} after the guard's {@link #NOW}. */
    private static SinkRecord issued(long offsetMillis) {
        return signed(command("app.sessions", "d1", 0, OptionalLong.of(NOW.toEpochMilli() + offsetMillis)));
    }

    private static SinkRecord record(String key, String value, ConnectHeaders headers) {
        return new SinkRecord(
                "ttl.deletes", 0, Schema.STRING_SCHEMA, key, Schema.STRING_SCHEMA, value, 7L, null, null, headers);
    }

    private static SinkRecord signed(SigningKey signer, String key, String value) {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addBytes(SigningKey.KEY_ID_HEADER, signer.id().getBytes(StandardCharsets.US_ASCII));
        headers.addBytes(
                SigningKey.SIGNATURE_HEADER,
                signer.sign(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))
                        .getBytes(StandardCharsets.US_ASCII));
        return record(key, value, headers);
    }

    private static SinkRecord signed(DeleteCommand command) {
        return signed(KEY, command.keyJson(), command.valueJson());
    }

    @Test
    void shouldPassASignedCommandUnchanged() {
        SinkRecord record = signed(command("app.sessions", "d1", NOW.toEpochMilli()));

        assertThat(guard(settings()).apply(record)).isSameAs(record);
    }

    @Test
    void shouldAcceptThePreviousKeyWhileKeysRotate() {
        SinkRecord record = signed(
                SigningKey.of(PREVIOUS_SECRET),
                command("audit.log", "d1", 0).keyJson(),
                command("audit.log", "d1", 0).valueJson());

        assertThat(guard(settings("signing.previous.key", PREVIOUS_SECRET)).apply(record))
                .isSameAs(record);
        assertThatThrownBy(() -> guard(settings()).apply(record))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("which this sink does not trust");
    }

    /** The forged filters of issue 9, each signed with the right key: the grammar alone must stop them. */
    static Stream<Arguments> forgedFilters() {
        return Stream.of(
                Arguments.of("{}", "must start with the document key's field '_id'"),
                Arguments.of("{\"_id\": {\"$exists\": true}}", "differs from the record key's"),
                Arguments.of("{\"_id\": {\"$gt\": \"\"}}", "differs from the record key's"),
                Arguments.of("{\"_id\": {\"$regex\": \"^users-\"}}", "differs from the record key's"),
                Arguments.of("{\"$expr\": {\"$eq\": [1, 1]}}", "found '$expr'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forgedFilters")
    void shouldRefuseTheForgedFiltersOfTheIssueEvenWhenSigned(String filter, String reason) {
        String key = "{\"_id\": \"users-1\"}";
        String value = "{\"_id\": " + filter + ", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"}, \"rule\": \"x\","
                + " \"deadline\": {\"$date\": 0}}";

        assertThatThrownBy(() -> guard(settings()).apply(signed(KEY, key, value)))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith(PREFIX + "[grammar] ")
                .hasMessageContaining(reason);
    }

    @Test
    void shouldRefuseAnUnsignedCommand() {
        DeleteCommand command = command("app.sessions", "d1", 0);

        assertThatThrownBy(() ->
                        guard(settings()).apply(record(command.keyJson(), command.valueJson(), new ConnectHeaders())))
                .isInstanceOf(DataException.class)
                .hasMessage(
                        PREFIX + "[signature] unsigned: the record has no ttl.signature header (only the ttl-streams"
                                + " processor, with ttl.command.signing.key, signs commands)");
    }

    @Test
    void shouldRefuseACommandSignedWithAWrongKey() {
        DeleteCommand command = command("app.sessions", "d1", 0);
        SinkRecord forged =
                signed(SigningKey.of("a-wrong-secret-somebody-made-up-123"), command.keyJson(), command.valueJson());

        assertThatThrownBy(() -> guard(settings()).apply(forged))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("which this sink does not trust (it trusts [" + KEY.id() + "])");
    }

    @Test
    void shouldRefuseAChangedValue() {
        DeleteCommand command = command("app.sessions", "d1", 0);
        SinkRecord original = signed(command);
        SinkRecord tampered = record(
                original.key().toString(), command("app.sessions", "d2", 0).valueJson(), (ConnectHeaders)
                        original.headers());

        assertThatThrownBy(() -> guard(settings()).apply(tampered))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("bad signature for key id " + KEY.id());
    }

    @Test
    void shouldRefuseANamespaceOutsideTheAllowList() {
        assertThatThrownBy(() -> guard(settings()).apply(signed(command("prod.users", "u1", 0))))
                .isInstanceOf(DataException.class)
                .hasMessage(PREFIX
                        + "[namespace] namespace prod.users is not in allowed.namespaces [app.sessions, audit.*]");
        assertThat(guard(settings()).apply(signed(command("audit.anything", "u1", 0))))
                .isNotNull();
    }

    @Test
    void shouldRefuseACommandDueLaterThanTheClockPlusTolerance() {
        long tolerance = 5_000;

        assertThat(guard(settings()).apply(signed(command("app.sessions", "d1", NOW.toEpochMilli() + tolerance))))
                .isNotNull();
        assertThatThrownBy(() -> guard(settings())
                        .apply(signed(command("app.sessions", "d1", NOW.toEpochMilli() + tolerance + 1))))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("the deadline 2026-01-01T00:00:15.001Z is later than the sink's clock"
                        + " 2026-01-01T00:00:10Z + 5000 ms");
        assertThatThrownBy(() -> guard(settings("clock.skew.tolerance.ms", "0"))
                        .apply(signed(command("app.sessions", "d1", NOW.toEpochMilli() + 1))))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("+ 0 ms");
    }

    @Test
    void shouldRefuseACommandIssuedLongerAgoThanItsValidity() {
        long validity = 2 * 60 * 60 * 1000L;

        assertThat(guard(settings()).apply(issued(-validity))).isNotNull();
        assertThatThrownBy(() -> guard(settings()).apply(issued(-validity - 1)))
                .isInstanceOf(DataException.class)
                .hasMessage(PREFIX + "[stale] the command was issued at 2025-12-31T22:00:09.999Z, more than"
                        + " command.max.age.ms=7200000 ms before the sink's clock 2026-01-01T00:00:10Z: a stale or"
                        + " replayed command (the processor re-emits an unconfirmed one with a new issue time)");
        assertThat(guard(settings("command.max.age.ms", "60000")).apply(issued(-60_000)))
                .isNotNull();
        assertThatThrownBy(() -> guard(settings("command.max.age.ms", "60000")).apply(issued(-60_001)))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("more than command.max.age.ms=60000 ms");
    }

    @Test
    void shouldRefuseACommandIssuedLaterThanTheClockPlusTolerance() {
        assertThat(guard(settings()).apply(issued(5_000))).isNotNull();
        assertThatThrownBy(() -> guard(settings()).apply(issued(5_001)))
                .isInstanceOf(DataException.class)
                .hasMessage(PREFIX
                        + "[issued-ahead] the command was issued at 2026-01-01T00:00:15.001Z, later than the sink's clock"
                        + " 2026-01-01T00:00:10Z + 5000 ms (clock.skew.tolerance.ms)");
        assertThatThrownBy(() -> guard(settings("clock.skew.tolerance.ms", "0")).apply(issued(1)))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("+ 0 ms (clock.skew.tolerance.ms)");
    }

    @Test
    void shouldRefuseACommandWithoutIssueTime() {
        SinkRecord unissued = signed(command("app.sessions", "d1", 0, OptionalLong.empty()));

        assertThatThrownBy(() -> guard(settings()).apply(unissued))
                .isInstanceOf(DataException.class)
                .hasMessage(PREFIX
                        + "[no-issue-time] the command has no issue time (value field 'issuedAt'), so it could be a"
                        + " replay of any age");
    }

    @Test
    void shouldRefuseHeadersThatDidNotArriveAsBytesOrArriveTwice() {
        DeleteCommand command = command("app.sessions", "d1", 0);
        SinkRecord record = signed(command);
        ConnectHeaders asText = new ConnectHeaders();
        record.headers().forEach(header -> asText.addString(header.key(), new String((byte[]) header.value())));
        ConnectHeaders twice = new ConnectHeaders();
        record.headers().forEach(twice::add);
        twice.add(record.headers().lastWithName(SigningKey.SIGNATURE_HEADER));

        assertThatThrownBy(() -> guard(settings()).apply(record(command.keyJson(), command.valueJson(), asText)))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith(PREFIX + "[format] ")
                .hasMessageContaining("header.converter=org.apache.kafka.connect.converters.ByteArrayConverter");
        assertThatThrownBy(() -> guard(settings()).apply(record(command.keyJson(), command.valueJson(), twice)))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith(PREFIX + "[signature] ")
                .hasMessageContaining("header ttl.signature appears 2 times");
    }

    @Test
    void shouldRefuseRecordsWithoutKeyOrValueOrOfAnotherType() {
        DeleteCommand command = command("app.sessions", "d1", 0);

        assertThatThrownBy(() -> guard(settings()).apply(record(null, command.valueJson(), new ConnectHeaders())))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("the record has no key");
        assertThatThrownBy(() -> guard(settings()).apply(record(command.keyJson(), null, new ConnectHeaders())))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("tombstone");
        SinkRecord map = new SinkRecord("t", 0, null, command.keyJson(), null, Map.of("_id", "x"), 1L);
        assertThatThrownBy(() -> guard(settings()).apply(map))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith(PREFIX + "[format] ")
                .hasMessageContaining("not a string");
    }

    @Test
    void shouldLetUnsignedCommandsThroughOnlyWhenAllowedExplicitlyAndStillCheckTheRest() {
        DeleteCommand command = command("app.sessions", "d1", 0);
        SinkRecord unsigned = record(command.keyJson(), command.valueJson(), new ConnectHeaders());
        Map<String, Object> noKey = settings("allow.unsigned", "true");
        noKey.remove("signing.key");

        assertThat(guard(noKey).apply(unsigned)).isSameAs(unsigned);
        assertThat(guard(settings("allow.unsigned", "true")).apply(unsigned)).isSameAs(unsigned);
        assertThatThrownBy(() -> guard(noKey).apply(signed(command)))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("has no signing.key to verify it with");
        DeleteCommand elsewhere = command("prod.users", "u1", 0);
        assertThatThrownBy(() ->
                        guard(noKey).apply(record(elsewhere.keyJson(), elsewhere.valueJson(), new ConnectHeaders())))
                .hasMessageContaining("not in allowed.namespaces");
        assertThatThrownBy(() -> guard(noKey)
                        .apply(record(
                                "{\"_id\": \"u\"}",
                                "{\"_id\": {}, \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"}, \"rule\": \"x\","
                                        + " \"deadline\": {\"$date\": 0}}",
                                new ConnectHeaders())))
                .hasMessageContaining("must start with the document key's field '_id'");
    }

    @Test
    void shouldRefuseToStartWithoutAKeyUnlessUnsignedCommandsAreAllowed() {
        Map<String, Object> noKey = settings();
        noKey.remove("signing.key");

        assertThatThrownBy(() -> guard(noKey))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("signing.key")
                .hasMessageContaining("allow.unsigned=true");
    }

    @Test
    void shouldRefuseBadSettingsAtStartUpNamingTheOption() {
        assertThatThrownBy(() -> guard(settings("signing.key", "short")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("signing.key")
                .hasMessageContaining("at least 32 bytes")
                .hasMessageNotContaining("short");
        assertThatThrownBy(() -> guard(settings("signing.key", "${file:/secrets/ttl-signing.properties:key}")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unresolved config provider reference");
        assertThatThrownBy(() -> guard(settings("signing.previous.key", "short")))
                .hasMessageContaining("signing.previous.key");
        Map<String, Object> previousOnly = settings("signing.previous.key", PREVIOUS_SECRET);
        previousOnly.remove("signing.key");
        assertThatThrownBy(() -> guard(previousOnly))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("needs a current one in signing.key");
        assertThatThrownBy(() -> guard(settings("allowed.namespaces", "")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("allowed.namespaces");
        assertThatThrownBy(() -> guard(settings("allowed.namespaces", "app")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("allowed.namespaces")
                .hasMessageContaining("expected db.coll or db.*");
        Map<String, Object> noList = settings();
        noList.remove("allowed.namespaces");
        assertThatThrownBy(() -> guard(noList))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("allowed.namespaces");
        assertThatThrownBy(() -> guard(settings("clock.skew.tolerance.ms", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("clock.skew.tolerance.ms");
        assertThatThrownBy(() -> guard(settings("command.max.age.ms", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("command.max.age.ms");
    }

    @Test
    void shouldRefuseToApplyBeforeItIsConfigured() {
        assertThatThrownBy(() -> new DeleteCommandGuard<SinkRecord>().apply(signed(command("app.sessions", "d", 0))))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldDescribeItsOptionsAndBeFoundByTheServiceLoader() {
        assertThat(new DeleteCommandGuard<SinkRecord>().config().names())
                .containsExactlyInAnyOrder(
                        "signing.key",
                        "signing.previous.key",
                        "allow.unsigned",
                        "allowed.namespaces",
                        "mark.fields",
                        "clock.skew.tolerance.ms",
                        "command.max.age.ms");
        assertThat(java.util.ServiceLoader.load(org.apache.kafka.connect.transforms.Transformation.class).stream()
                        .map(java.util.ServiceLoader.Provider::type))
                .contains(DeleteCommandGuard.class);
    }
}
