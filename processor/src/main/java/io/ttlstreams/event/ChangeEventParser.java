package io.ttlstreams.event;

import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TopicNamespaceMapping;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ChangeStreamPipeline;
import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.Literals;
import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.json.JsonReader;

/**
 * Parses the JSON values the MongoDB Kafka source connector publishes ({@code output.format.value=json}, {@code
 * ExtendedJson} formatter; relaxed extended JSON is accepted too) into {@link ChangeEvent}s.
 *
 * <ul>
 *   <li>Namespace: the event's {@code ns} ({@code db} and {@code coll}; just {@code db} for dropDatabase), else the
 *       topic's namespace through the {@link TopicNamespaceMapping}. When the topic has a namespace, an {@code ns}
 *       is a claim checked against it: it must name the topic's collection, so that a writer of one source topic
 *       cannot drop or schedule another collection's documents, and a dropDatabase on a collection's topic is
 *       refused (the connector publishes it to the database's topic). A topic the mapping gives no namespace, such
 *       as a database's {@code <prefix>.<db>}, is not checked.</li>
 *   <li>Document key: {@code documentKey} when it is a document holding {@code _id}, with all its fields (shard
 *       keys); else {@code {"_id": fullDocument._id}}. The key becomes part of a delete filter verbatim, so a key
 *       MongoDB could not hold is refused: a field name starting with {@code $} at any depth (a filter would read
 *       it as an operator), or a top-level value that is an array, a regular expression or undefined (a filter
 *       would match elements or a pattern), and so is a key larger than the configured bound (bytes of BSON).</li>
 *   <li>Event time: {@code wallTime}, else the end of the {@code clusterTime} second, else the record
 *       timestamp.</li>
 *   <li>Size bounds of the source pipeline ({@link ChangeStreamPipeline}): a pre-image too large to carry arrives as
 *       its marker, which becomes the event's pre-image with {@link ChangeEvent#preImageTooLarge()}; an event whose
 *       {@code fullDocument} was too large to carry is refused, since nothing can be decided from it.</li>
 * </ul>
 *
 * <p>The JSON is read within {@link BoundedJson}'s nesting limit, so that no value can overflow the stack. Only the
 * fields read here are built ({@code operationType}, {@code ns}, {@code documentKey}, {@code clusterTime}, {@code
 * wallTime}, {@code fullDocumentBeforeChange}, and of {@code fullDocument} what the rules read when the parser is made
 * {@link #forConfig for the configuration}); the rest (the resume token, {@code updateDescription}, ...) is read past
 * within the same limit, so that a value too deep or malformed anywhere in the event still refuses it.
 *
 * <p>Thread-safe: it holds no mutable state.
 */
public final class ChangeEventParser {

    private static final BsonDocumentCodec KEY_CODEC = new BsonDocumentCodec();
    /** The event's fields this parser reads, besides {@code fullDocument}. */
    private static final Set<String> EVENT_FIELDS = Set.of(
            "operationType",
            "ns",
            "documentKey",
            "clusterTime",
            "wallTime",
            "fullDocumentBeforeChange",
            ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE,
            ChangeStreamPipeline.FULL_DOCUMENT_TOO_LARGE);

    private static final String FULL_DOCUMENT = "fullDocument";
    private static final String DOCUMENT_ID = "_id";
    /** How the messages name the types an event's fields must have. */
    private static final Map<BsonType, String> TYPE_NAMES = Map.of(
            BsonType.DOCUMENT, "document",
            BsonType.STRING, "string",
            BsonType.TIMESTAMP, "timestamp",
            BsonType.DATE_TIME, "date");

    private final TopicNamespaceMapping mapping;
    private final int maxDocumentKeyBytes;
    private final SourceProfile profile;
    /** What is built of an event: {@link #EVENT_FIELDS} whole, {@code fullDocument} as far as it is read. */
    private final BoundedJson.Fields fields;

    /**
     * A parser that builds the whole {@code fullDocument}, for readers of more than the rules read ({@code explain}).
     *
     * @param mapping resolves the namespace of events without an {@code ns} field from their topic
     * @param maxDocumentKeyBytes the largest document key, in bytes of BSON, an event may have
     * @param profile the service whose change events are read: on Cosmos DB, whose required projection drops {@code
     *     operationType}, an event without one is an update carrying the document as it now is
     */
    public ChangeEventParser(TopicNamespaceMapping mapping, int maxDocumentKeyBytes, SourceProfile profile) {
        this(mapping, maxDocumentKeyBytes, profile, BoundedJson.Fields.ALL);
    }

    /**
     * A parser that builds of {@code fullDocument} only {@code _id} (the document key of last resort) and the
     * top-level fields of {@code documentPaths} (dotted paths, each keeping its first field whole).
     *
     * @param documentPaths the document paths whatever reads the events reads
     */
    public ChangeEventParser(
            TopicNamespaceMapping mapping,
            int maxDocumentKeyBytes,
            SourceProfile profile,
            Collection<String> documentPaths) {
        this(mapping, maxDocumentKeyBytes, profile, projection(documentPaths));
    }

    /**
     * The processor's parser for {@code config}: of {@code fullDocument} it builds what the rules read (dates,
     * per-document TTLs, witnesses, partial filters, marks, and {@code _id}), the same paths the source connector's
     * pipeline projects ({@link ChangeStreamPipeline#documentPaths}).
     */
    public static ChangeEventParser forConfig(TtlStreamsConfig config) {
        return new ChangeEventParser(
                config.topicNamespaceMapping(),
                config.documentKeyMaxBytes(),
                config.sourceProfile(),
                ChangeStreamPipeline.documentPaths(config.rules().rules()));
    }

    private ChangeEventParser(
            TopicNamespaceMapping mapping,
            int maxDocumentKeyBytes,
            SourceProfile profile,
            BoundedJson.Fields document) {
        this.fields = name ->
                name.equals(FULL_DOCUMENT) ? document : EVENT_FIELDS.contains(name) ? BoundedJson.Fields.ALL : null;
        this.profile = Objects.requireNonNull(profile, "profile");
        this.mapping = Objects.requireNonNull(mapping, "mapping");
        if (maxDocumentKeyBytes < 1) {
            throw new IllegalArgumentException("maxDocumentKeyBytes must be positive: " + maxDocumentKeyBytes);
        }
        this.maxDocumentKeyBytes = maxDocumentKeyBytes;
    }

    /**
     * Parses one source record.
     *
     * @param topic           the record's topic, for events without {@code ns}
     * @param key             the record key; not used, because depending on the connector's {@code
     *                        change.stream.document.key.as.key} it is the document key or the resume token, while the
     *                        value always carries the document key
     * @param value           the record value: the change event as extended JSON
     * @param recordTimestamp the record timestamp (ms), the event time of last resort
     * @throws InvalidChangeEventException naming what is wrong, if the value is not a usable change event
     */
    public ChangeEvent parse(String topic, String key, String value, long recordTimestamp)
            throws InvalidChangeEventException {
        BsonDocument event = parseDocument(topic, value);
        OperationType operationType = operationTypeOf(topic, event);
        Namespace namespace = namespaceOf(topic, event, operationType);
        BsonDocument fullDocument = operationType.isNamespaceWide() ? null : fullDocumentOf(topic, event);
        BsonDocument documentKey =
                operationType.isNamespaceWide() ? null : documentKeyOf(topic, event, fullDocument, operationType);
        BsonTimestamp clusterTime = clusterTimeOf(topic, event);
        Instant eventTime = eventTimeOf(topic, event, clusterTime, recordTimestamp);
        // The pre-image: missing where the collection keeps none, or the connector does not ask for it ({@code
        // change.stream.full.document.before.change}); else, when too large to carry, the marker the source pipeline
        // puts in its place ({@link ChangeStreamPipeline#PRE_IMAGE_TOO_LARGE}): its _id and the fields the rules read.
        BsonDocument before =
                operationType.isNamespaceWide() ? null : optionalDocument(topic, event, "fullDocumentBeforeChange");
        BsonDocument marker = operationType.isNamespaceWide()
                ? null
                : optionalDocument(topic, event, ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE);
        if (before != null && marker != null) {
            throw invalid(topic, "it has both a pre-image and the marker of one too large to carry");
        }
        return new ChangeEvent(
                operationType,
                namespace,
                documentKey,
                fullDocument,
                eventTime,
                clusterTime,
                marker != null ? marker : before,
                marker != null);
    }

    /** Of a document, the top-level fields of {@code paths}, each whole. */
    private static BoundedJson.Fields projection(Collection<String> paths) {
        Set<String> topLevel = Stream.concat(Stream.of(DOCUMENT_ID), paths.stream())
                .map(path -> path.contains(".") ? path.substring(0, path.indexOf('.')) : path)
                .collect(Collectors.toUnmodifiableSet());
        return name -> topLevel.contains(name) ? BoundedJson.Fields.ALL : null;
    }

    private BsonDocument parseDocument(String topic, String value) {
        if (value == null) {
            throw invalid(topic, "the value is null (a tombstone, not a change event)");
        }
        try {
            JsonReader reader = new JsonReader(value);
            // The top-level type tells an array, a scalar or an extended JSON value such as {"$oid": ...} apart from
            // a document; BsonDocument.parse would only report a reader state.
            BsonType type = reader.readBsonType();
            if (type == BsonType.END_OF_DOCUMENT) {
                throw invalid(topic, "the value is empty");
            }
            if (type != BsonType.DOCUMENT) {
                throw invalid(topic, "the value is JSON of type " + type + ", not a document");
            }
            BsonDocument document = BoundedJson.readDocument(reader, fields);
            // The reader stops after the first document; anything after it means the value is not one event.
            if (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                throw invalid(topic, "the value has content after the JSON document");
            }
            return document;
        } catch (InvalidChangeEventException e) {
            throw e;
        } catch (RuntimeException e) {
            // JsonParseException, BsonInvalidOperationException and friends: all mean malformed (extended) JSON.
            throw new InvalidChangeEventException(
                    prefix(topic) + "the value is not valid (extended) JSON: " + e.getMessage(), e);
        }
    }

    private OperationType operationTypeOf(String topic, BsonDocument event) {
        BsonValue operationType = optional(topic, event, "operationType", "operationType", BsonType.STRING);
        if (operationType == null) {
            if (!event.containsKey("operationType") && !profile.eventsCarryOperationType()) {
                // Only inserts, updates and replaces pass the required $match, each with the looked-up document.
                return OperationType.UPDATE;
            }
            throw invalid(topic, "it has no operationType");
        }
        return OperationType.fromChangeStream(operationType.asString().getValue());
    }

    private Namespace namespaceOf(String topic, BsonDocument event, OperationType operationType) {
        Namespace namespace = namespaceFromNs(topic, event);
        Optional<Namespace> topicNamespace = mapping.namespaceOf(topic);
        if (operationType == OperationType.DROP_DATABASE && topicNamespace.isPresent()) {
            // The source connector publishes a dropDatabase to <prefix>.<db>, never to a collection's topic: one
            // there is forged, and would cancel every other collection of the database too.
            throw invalid(
                    topic,
                    "a dropDatabase on a topic that carries the collection '" + topicNamespace.get() + "' (by "
                            + SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG + " and "
                            + SourceOptions.SOURCE_TOPIC_NAMESPACE_MAP_CONFIG + "); the source connector"
                            + " publishes it to the database's own topic");
        }
        if (namespace == null) {
            namespace =
                    topicNamespace.orElseThrow(() -> invalid(topic, "it has no ns and the topic maps to no namespace"));
        } else if (topicNamespace.isPresent() && !namespace.equals(topicNamespace.get())) {
            throw invalid(
                    topic,
                    "its ns names '" + namespace + "', but the topic carries '" + topicNamespace.get() + "' (by "
                            + SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG + " and "
                            + SourceOptions.SOURCE_TOPIC_NAMESPACE_MAP_CONFIG + ")");
        }
        if (operationType == OperationType.DROP_DATABASE) {
            // A dropped database is identified by its name alone.
            return namespace.databaseNamespace();
        }
        if (operationType.requiresDocumentKey() && namespace.isDatabase()) {
            throw invalid(topic, "its namespace '" + namespace + "' names no collection");
        }
        return namespace;
    }

    /** The collection, or the database for database-level events, from {@code ns}; null when there is no ns. */
    private static Namespace namespaceFromNs(String topic, BsonDocument event) {
        BsonValue ns = optional(topic, event, "ns", "ns", BsonType.DOCUMENT);
        if (ns == null) {
            return null;
        }
        BsonValue db = ns.asDocument().get("db");
        if (db == null || !db.isString()) {
            throw invalid(topic, "its ns has no string db");
        }
        BsonValue coll = optional(topic, ns.asDocument(), "coll", "ns.coll", BsonType.STRING);
        try {
            return new Namespace(
                    db.asString().getValue(),
                    coll == null ? null : coll.asString().getValue());
        } catch (IllegalArgumentException e) {
            throw invalid(topic, "its ns is not a valid namespace: " + e.getMessage());
        }
    }

    private static BsonDocument fullDocumentOf(String topic, BsonDocument event) {
        BsonValue tooLarge = event.get(ChangeStreamPipeline.FULL_DOCUMENT_TOO_LARGE);
        if (tooLarge != null) {
            // Undecidable: nothing is scheduled from it. The earlier entry, if any, stays: its delete pins the values
            // it was computed from and re-checks the partial filter, so the changed document does not match it.
            throw invalid(
                    topic,
                    "the source pipeline dropped its fullDocument, "
                            + (tooLarge.isNumber()
                                    ? Long.toString(tooLarge.asNumber().longValue())
                                    : "too many")
                            + " bytes of BSON of the fields the rules read, over the "
                            + ChangeStreamPipeline.RULE_FIELDS_MAX_BYTES + " an event carries");
        }
        // Null or missing is legitimate: a delete has none, and updateLookup finds none when the document was
        // deleted in the meantime.
        return optionalDocument(topic, event, FULL_DOCUMENT);
    }

    private BsonDocument documentKeyOf(
            String topic, BsonDocument event, BsonDocument fullDocument, OperationType operationType) {
        BsonValue documentKey = event.get("documentKey");
        if (documentKey != null
                && documentKey.isDocument()
                && documentKey.asDocument().containsKey(DOCUMENT_ID)) {
            return checkedKey(topic, documentKey.asDocument(), "documentKey");
        }
        // Change streams reshaped by a pipeline (as the MongoDB stand-in needs) may lack a proper documentKey.
        if (fullDocument != null && fullDocument.containsKey(DOCUMENT_ID)) {
            return checkedKey(topic, new BsonDocument(DOCUMENT_ID, fullDocument.get(DOCUMENT_ID)), "fullDocument");
        }
        if (operationType.requiresDocumentKey()) {
            throw invalid(
                    topic,
                    "the " + operationType + " event has no document id: neither documentKey._id"
                            + " nor fullDocument._id is present");
        }
        return null;
    }

    /**
     * {@code key}, after checking that it is a key MongoDB could hold and that a filter reads as plain equality; a
     * forged key such as {@code {"_id": {"$exists": true}}} would otherwise delete other documents. A key larger
     * than the bound is refused first: its delete command, which carries it twice, could not be produced. Returned as
     * the BSON its size was measured on, which the scheduler's document reference then takes as it is.
     */
    private BsonDocument checkedKey(String topic, BsonDocument key, String path) {
        RawBsonDocument raw = new RawBsonDocument(key, KEY_CODEC);
        int keyBytes = raw.getByteBuffer().remaining();
        if (keyBytes > maxDocumentKeyBytes) {
            throw invalid(
                    topic,
                    "its document key (" + path + ") is " + keyBytes + " bytes of BSON, more than the "
                            + maxDocumentKeyBytes + " bytes " + OperationsOptions.DOCUMENT_KEY_MAX_BYTES_CONFIG
                            + " allows; its delete command could not be produced, so it is not scheduled");
        }
        for (Map.Entry<String, BsonValue> field : key.entrySet()) {
            BsonType type = field.getValue().getBsonType();
            if (type == BsonType.ARRAY || type == BsonType.REGULAR_EXPRESSION || type == BsonType.UNDEFINED) {
                throw invalid(
                        topic,
                        "its document key field " + path + "." + field.getKey() + " is of type " + type
                                + ", which MongoDB refuses in a document key and a delete filter would not read"
                                + " as one value");
            }
        }
        checkNoOperatorNames(topic, key, path);
        // What remains is what the sink guard refuses besides: a regular expression or undefined nested in a value.
        for (Map.Entry<String, BsonValue> field : key.entrySet()) {
            Optional<String> problem = Literals.problem(field.getValue());
            if (problem.isPresent()) {
                throw invalid(
                        topic,
                        "its document key field " + path + "." + field.getKey() + " holds " + problem.get()
                                + ", which a delete filter would not read as one value");
            }
        }
        return raw;
    }

    private static void checkNoOperatorNames(String topic, BsonValue value, String path) {
        if (value.isDocument()) {
            for (Map.Entry<String, BsonValue> field : value.asDocument().entrySet()) {
                String fieldPath = path + "." + field.getKey();
                if (field.getKey().startsWith("$")) {
                    throw invalid(
                            topic,
                            "its document key holds the field name " + fieldPath
                                    + ", which a delete filter would read as an operator");
                }
                checkNoOperatorNames(topic, field.getValue(), fieldPath);
            }
        } else if (value.isArray()) {
            int index = 0;
            for (BsonValue element : value.asArray()) {
                checkNoOperatorNames(topic, element, path + "." + index++);
            }
        }
    }

    private static BsonTimestamp clusterTimeOf(String topic, BsonDocument event) {
        BsonValue clusterTime = optional(topic, event, "clusterTime", "clusterTime", BsonType.TIMESTAMP);
        return clusterTime == null ? null : clusterTime.asTimestamp();
    }

    private static Instant eventTimeOf(
            String topic, BsonDocument event, BsonTimestamp clusterTime, long recordTimestamp) {
        BsonValue wallTime = optional(topic, event, "wallTime", "wallTime", BsonType.DATE_TIME);
        if (wallTime != null) {
            return Instant.ofEpochMilli(wallTime.asDateTime().getValue());
        }
        if (clusterTime != null) {
            // The seconds are an unsigned 32-bit count; the increment orders events within a second, not time. The
            // event happened somewhere in that second: its end is the latest it can have been, so a deadline counted
            // from it is never early (at most a second late).
            return Instant.ofEpochSecond(Integer.toUnsignedLong(clusterTime.getTime()) + 1);
        }
        return Instant.ofEpochMilli(recordTimestamp);
    }

    /**
     * The value of {@code field} in {@code document}, named {@code path} in the message; null when it is missing or
     * null.
     *
     * @throws InvalidChangeEventException when it holds anything but a {@code type}
     */
    private static BsonValue optional(String topic, BsonDocument document, String field, String path, BsonType type) {
        BsonValue value = document.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (value.getBsonType() != type) {
            throw invalid(topic, "its " + path + " is a " + value.getBsonType() + ", not a " + TYPE_NAMES.get(type));
        }
        return value;
    }

    /** {@link #optional} of a document field named as it is. */
    private static BsonDocument optionalDocument(String topic, BsonDocument event, String field) {
        BsonValue value = optional(topic, event, field, field, BsonType.DOCUMENT);
        return value == null ? null : value.asDocument();
    }

    private static InvalidChangeEventException invalid(String topic, String problem) {
        return new InvalidChangeEventException(prefix(topic) + problem);
    }

    private static String prefix(String topic) {
        return "Invalid change event on topic '" + topic + "': ";
    }
}
