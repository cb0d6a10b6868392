package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LoadTest {

    @TempDir
    Path directory;

    private Path write(String... lines) throws IOException {
        return Files.writeString(directory.resolve("ttl.properties"), String.join("\n", lines) + "\n");
    }

    @Test
    void shouldLoadACopiedExampleWithTrailingComments() throws IOException {
        Path file = write(
                "# TTL rules",
                "ttl.rules=sessions   # one name per rule",
                "ttl.rule.sessions.namespace=app.sessions   # db.collection",
                "ttl.rule.sessions.field=expireAt\t# the date field",
                "ttl.rule.sessions.expire.after.seconds = 10 # seconds after the date",
                "ttl.rule.sessions.partial.filter={\"status\": \"#active\", \"note\": \"a # b\"}  # only these",
                "ttl.audit.topic=   # empty: no audit",
                "bootstrap.servers=localhost:9092 # the broker",
                "ssl.key.password=p#ss \\#kept");

        TtlStreamsConfig config = ConfigLayers.load(file, Map.of(), List.of());

        assertThat(config.rules().rules()).hasSize(1);
        assertThat(config.rules().rules().get(0).namespace()).hasToString("app.sessions");
        assertThat(config.rules().rules().get(0).field()).isEqualTo("expireAt");
        assertThat(config.rules().rules().get(0).expireAfterSeconds()).isEqualTo(10);
        assertThat(config.rules().rules().get(0).partialFilter().expression())
                .isEqualTo(BsonDocument.parse("{status: '#active', note: 'a # b'}"));
        assertThat(config.auditTopic()).isEmpty();
        assertThat(config.streamsProperties())
                .containsEntry("bootstrap.servers", "localhost:9092")
                .containsEntry("ssl.key.password", "p#ss #kept");
    }

    @Test
    void shouldReportTheOptionOfALoadedFile() throws IOException {
        Path file = write(
                "ttl.rules=sessions",
                "ttl.rule.sessions.namespace=app.sessions",
                "ttl.rule.sessions.field=expireAt",
                "ttl.rule.sessions.expire.after.seconds=NaN  # oops");

        assertThatThrownBy(() -> ConfigLayers.load(file, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.expire.after.seconds");
    }

    @Test
    void shouldNameAMissingFile() {
        Path missing = directory.resolve("nope.properties");

        assertThatThrownBy(() -> ConfigLayers.load(missing, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist");
    }

    @Test
    void shouldNameAnUnreadableFile() {
        assertThatThrownBy(() -> ConfigLayers.load(directory, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(directory.toString());
    }

    @Test
    void shouldNameAFileThatIsNotUtf8() throws IOException {
        Path file = Files.write(
                directory.resolve("latin1.properties"),
                "ttl.rules=s\u00e9ssions\n".getBytes(StandardCharsets.ISO_8859_1));

        assertThatThrownBy(() -> ConfigLayers.load(file, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("UTF-8");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                // a comment needs whitespace before the #
                "key=value # note                       | key=value",
                "key=value#not-a-comment                | key=value#not-a-comment",
                "key=#fff                               | key=#fff",
                "key= # note                            | key=",
                // whole-line comments are left to Properties
                "# key=value # note                     | # key=value # note",
                "`   ! key=value # note`                | `   ! key=value # note`",
                // inside a JSON string a # is text, also after an escaped quote
                "f={\"a\": \"x #1\"} # note              | f={\"a\": \"x #1\"}",
                "f={\"a\": \"say \\\\\"hi\\\\\" #1\"}    | f={\"a\": \"say \\\\\"hi\\\\\" #1\"}",
                // an escaped # or an escaped space before it keeps it
                "p=a \\#b                                | p=a \\#b",
                "p=a\\ #b                                | p=a\\ #b",
                "p=a\\  #b                               | `p=a\\ `",
            })
    void shouldStripOnlyTrailingComments(String line, String expected) {
        assertThat(stripTrailingComments(line)).isEqualTo(expected + "\n");
    }

    @Test
    void shouldKeepAContinuationLinesStringState() throws IOException {
        Path file = write(
                "ttl.rules=sessions",
                "ttl.rule.sessions.namespace=app.sessions",
                "ttl.rule.sessions.field=expireAt",
                "ttl.rule.sessions.partial.filter={\"status\": \\",
                "    \"a #b\"}   # note");

        assertThat(ConfigLayers.load(file, Map.of(), List.of())
                        .rules()
                        .rules()
                        .get(0)
                        .partialFilter()
                        .expression())
                .isEqualTo(BsonDocument.parse("{status: 'a #b'}"));
    }

    @Test
    void shouldEndAContinuationAtACommentThatSwallowsTheBackslash() {
        assertThat(stripTrailingComments("a=1 # note \\\nb=2\n")).isEqualTo("a=1\nb=2\n");
    }

    @Test
    void shouldRefuseAKeyGivenTwiceNamingItAndBothLines() throws IOException {
        Path file = write(
                "ttl.rules=sessions",
                "ttl.rule.sessions.namespace=app.sessions",
                "ttl.rule.sessions.field=expireAt",
                "ttl.rule.sessions.expire.after.seconds=60",
                "# a later copy-paste",
                "ttl.rule.sessions.expire.after.seconds=0");

        assertThatThrownBy(() -> ConfigLayers.load(file, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("ttl.rule.sessions.expire.after.seconds twice, on lines 4 and 6");
    }

    @Test
    void shouldCountContinuationLinesAndReadEscapedKeysAsPropertiesDoes() throws IOException {
        String continuedValue = String.join(
                "\n",
                "ttl.rules=sessions",
                "ttl.rule.sessions.namespace=app.sessions",
                "ttl.rule.sessions.partial.filter={\"status\": \\",
                "    \"open\"}   # continued",
                "ttl.rule.sessions.field=expireAt");
        Path continuedKey = write(continuedValue, "ttl.rule.sessions.\\", "    partial.filter = {}");
        assertThatThrownBy(() -> ConfigLayers.load(continuedKey, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.partial.filter twice, on lines 3 and 6");

        Path escapedKey = write(continuedValue, "ttl.rule.sessions.partial\\u002efilter:{}");
        assertThatThrownBy(() -> ConfigLayers.load(escapedKey, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.partial.filter twice, on lines 3 and 6");
    }

    @Test
    void shouldNotMistakeACommentOrAContinuedValueForAKey() throws IOException {
        Path file = write(
                "ttl.rules=sessions",
                "# ttl.rules=events",
                "ttl.rule.sessions.namespace=app.sessions",
                "ttl.rule.sessions.field=\\",
                "ttl.rules",
                "bootstrap.servers=localhost:9092 # ttl.rules=x");

        TtlStreamsConfig config = ConfigLayers.load(file, Map.of(), List.of());

        assertThat(config.rules().rules().get(0).field()).isEqualTo("ttl.rules");
    }

    @Test
    void shouldAcceptAByteOrderMark() throws IOException {
        Path file = Files.write(
                directory.resolve("bom.properties"),
                ("\uFEFFttl.rules=sessions\nttl.rule.sessions.namespace=app.sessions\n"
                                + "ttl.rule.sessions.field=expireAt\n")
                        .getBytes(StandardCharsets.UTF_8));

        assertThat(ConfigLayers.load(file, Map.of(), List.of()).rules().rules()).hasSize(1);
    }

    @Test
    void shouldAcceptAByteOrderMarkBeforeAComment() throws IOException {
        Path file = Files.write(
                directory.resolve("bom.properties"),
                ("\uFEFF# rules\nttl.rules=sessions\nttl.rule.sessions.namespace=app.sessions\n"
                                + "ttl.rule.sessions.field=expireAt\n")
                        .getBytes(StandardCharsets.UTF_8));

        assertThat(ConfigLayers.load(file, Map.of(), List.of()).rules().rules()).hasSize(1);
    }

    @Test
    void shouldNameTheLineOfAMalformedEscape() throws IOException {
        Path file = write("ttl.rules=sessions", "ttl.rule.sessions.field=\\uZZZZ");

        assertThatThrownBy(() -> ConfigLayers.load(file, Map.of(), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file + ", line 2");
    }

    /** {@code text} as {@link PropertiesFiles#logicalLines} leaves it, one line each. */
    private static String stripTrailingComments(String text) {
        StringBuilder out = new StringBuilder();
        PropertiesFiles.logicalLines(text)
                .forEach(line -> out.append(line.text()).append('\n'));
        return out.toString();
    }
}
