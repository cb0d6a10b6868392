package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class OperationTypeTest {

    @ParameterizedTest
    @CsvSource({
        "insert, INSERT",
        "update, UPDATE",
        "replace, REPLACE",
        "delete, DELETE",
        "drop, DROP",
        "dropDatabase, DROP_DATABASE",
        "rename, RENAME",
        "invalidate, INVALIDATE"
    })
    void shouldMapEveryChangeStreamName(String name, OperationType expected) {
        assertThat(OperationType.fromChangeStream(name)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "createIndexes",
                "create",
                "modify",
                "shardCollection",
                "",
                "Insert",
                "DROP_DATABASE",
                "dropdatabase"
            })
    void shouldMapAnythingElseToOther(String name) {
        assertThat(OperationType.fromChangeStream(name)).isEqualTo(OperationType.OTHER);
    }

    @Test
    void shouldTreatOnlyDropsRenameAndInvalidateAsNamespaceWide() {
        EnumSet<OperationType> namespaceWide = EnumSet.noneOf(OperationType.class);
        for (OperationType type : OperationType.values()) {
            if (type.isNamespaceWide()) {
                namespaceWide.add(type);
            }
        }
        assertThat(namespaceWide)
                .containsExactlyInAnyOrder(
                        OperationType.DROP,
                        OperationType.DROP_DATABASE,
                        OperationType.RENAME,
                        OperationType.INVALIDATE);
    }
}
