package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TopicNamespaceMapping;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The parser's bound on document keys, in bytes of BSON as MongoDB's $bsonSize counts them. */
class DocumentKeyBoundTest {

    /** {"_id": "<n x's>"}: 4 (length) + 1 (type) + 4 ("_id\0") + 4 (string length) + n + 1 (NUL) + 1 (end). */
    private static final int KEY_OVERHEAD = 15;

    private static final int BOUND = 100;

    private final ChangeEventParser parser =
            new ChangeEventParser(new TopicNamespaceMapping(Map.of(), ""), BOUND, SourceProfile.MONGODB);

    private static String insert(String documentKey, String id) {
        return "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"s\"}, " + documentKey
                + "\"fullDocument\": {\"_id\": \"" + id + "\"}}";
    }

    private ChangeEvent parse(String value) {
        return parser.parse("app.s", null, value, 0);
    }

    @Test
    void shouldAcceptAKeyOfExactlyTheBound() {
        String id = "x".repeat(BOUND - KEY_OVERHEAD);

        assertThat(parse(insert("\"documentKey\": {\"_id\": \"" + id + "\"}, ", id))
                        .documentKey()
                        .getString("_id")
                        .getValue())
                .isEqualTo(id);
    }

    @Test
    void shouldRefuseAKeyOneByteOverTheBoundWithItsSize() {
        String id = "x".repeat(BOUND - KEY_OVERHEAD + 1);

        assertThatThrownBy(() -> parse(insert("\"documentKey\": {\"_id\": \"" + id + "\"}, ", id)))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("document key (documentKey) is 101 bytes of BSON, more than the 100 bytes")
                .hasMessageContaining("ttl.document.key.max.bytes");
    }

    @Test
    void shouldRefuseAnOversizedKeyTakenFromTheFullDocument() {
        String id = "x".repeat(BOUND);

        assertThatThrownBy(() -> parse(insert("", id)))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("document key (fullDocument) is 115 bytes of BSON");
    }
}
