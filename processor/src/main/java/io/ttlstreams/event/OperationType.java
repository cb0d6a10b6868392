package io.ttlstreams.event;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The change stream's {@code operationType}, reduced to what the TTL engine acts on. */
public enum OperationType {
    INSERT("insert"),
    UPDATE("update"),
    REPLACE("replace"),
    DELETE("delete"),
    DROP("drop"),
    DROP_DATABASE("dropDatabase"),
    RENAME("rename"),
    INVALIDATE("invalidate"),
    /**
     * Not MongoDB's: a document as {@code ttl-streams resync} read it, published beside the change events to fill what
     * the change stream missed. Treated as an update, unless it is older than the latest change already applied.
     */
    RESYNC("resync"),
    /** Any other operation (createIndexes, create, modify, ...): parsed, then ignored by the processor. */
    OTHER(null);

    private static final Map<String, OperationType> BY_CHANGE_STREAM_NAME = Arrays.stream(values())
            .filter(type -> type.changeStreamName != null)
            .collect(Collectors.toUnmodifiableMap(type -> type.changeStreamName, Function.identity()));

    private final String changeStreamName;

    OperationType(String changeStreamName) {
        this.changeStreamName = changeStreamName;
    }

    /**
     * The type of a change stream {@code operationType} value. Matching is exact (the server spells them in camel
     * case); anything unknown is {@link #OTHER}, so that new server operations never break the pipeline.
     */
    public static OperationType fromChangeStream(String operationType) {
        Objects.requireNonNull(operationType, "operationType");
        return BY_CHANGE_STREAM_NAME.getOrDefault(operationType, OTHER);
    }

    /** Whether the operation affects a whole collection or database rather than one document. */
    public boolean isNamespaceWide() {
        return this == DROP || this == DROP_DATABASE || this == RENAME || this == INVALIDATE;
    }

    /** Whether the operation concerns one document, which the engine must then be able to identify. */
    boolean requiresDocumentKey() {
        return this == INSERT || this == UPDATE || this == REPLACE || this == DELETE || this == RESYNC;
    }
}
