package io.ttlstreams.connect;

import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.rules.TtlRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * The change-stream pipeline of one source connector, as its {@link SourceProfile} accepts it. On MongoDB: a {@code $match} that keeps the operations and
 * namespaces the processor acts on, a {@code $match} that drops events whose document key is larger than the
 * processor schedules (its {@code ttl.document.key.max.bytes}: such an event could exceed what the connector may
 * produce and fail its task), a {@code $project} that keeps only the fields it reads, so that large documents
 * never cross Kafka, and a {@code $set} that bounds by {@code $bsonSize} what is left ({@code fullDocument}, and the
 * pre-image where a rule's expired records want it), so that every event fits what MongoDB returns and what the
 * rendered producer sends ({@link #maxRecordBytes}). Services that document fewer stages get the first and last; Cosmos DB gets exactly the pipeline
 * it requires. {@link #documentPaths} is public: {@code ttl-streams resync} reads documents with the
 * same projection, so that a resync carries exactly what a change event would.
 */
public final class ChangeStreamPipeline {

    /** Every operation type the processor handles; anything else would only cost a topic write. */
    static final List<String> OPERATION_TYPES =
            List.of("insert", "update", "replace", "delete", "drop", "dropDatabase", "rename", "invalidate");

    /**
     * Change-event fields the processor reads besides the document's own: {@code _id} is the resume token (a
     * change stream refuses to continue when it is projected away), {@code to} is the target of a rename.
     */
    static final List<String> EVENT_FIELDS =
            List.of("_id", "operationType", "ns", "documentKey", "clusterTime", "wallTime", "to");

    /**
     * Projected even when no rule reads a field, so that {@code fullDocument} is present exactly when the lookup
     * found the document; last-modified rules need nothing else from it.
     */
    private static final String DOCUMENT_ID = "_id";

    private static final String FULL_DOCUMENT = "fullDocument";

    /** The change event's pre-image, which expired records with the document need. */
    static final String PRE_IMAGE = "fullDocumentBeforeChange";

    /**
     * The marker that replaces a pre-image larger than {@link #PRE_IMAGE_MAX_BYTES}: the pre-image projected to
     * {@link #documentPaths} ({@code _id} and every field the rules read), so that the processor can still tell the
     * command's delete from another writer's, and its expired record says the document was too large to carry.
     */
    public static final String PRE_IMAGE_TOO_LARGE = "fullDocumentBeforeChangeTooLarge";

    /**
     * The largest pre-image an event carries whole, in bytes of BSON ({@code $bsonSize}). A whole document of up to
     * 16 MiB in the event would fail the change stream at 16 MiB + 16 KiB (BSONObjectTooLarge, at every resume) and
     * exceed any producer's {@code max.request.size}; 256 KiB keeps the largest event, as extended JSON in the worst
     * case, within what the source connector's producer is rendered to send ({@link #maxRecordBytes}).
     */
    public static final int PRE_IMAGE_MAX_BYTES = 256 * 1024;

    /**
     * The largest {@code fullDocument} an event carries, in bytes of BSON: the fields the rules read (dates, numbers,
     * the values partial filters compare), far smaller in any sane collection. A larger one is dropped from the
     * event, which says so in {@link #FULL_DOCUMENT_TOO_LARGE}, and the processor dead-letters and counts it; so is
     * a pre-image's marker cut to its {@code _id}.
     */
    public static final int RULE_FIELDS_MAX_BYTES = 64 * 1024;

    /** Present, with {@code fullDocument}'s size, when the pipeline dropped a {@code fullDocument} too large to carry. */
    public static final String FULL_DOCUMENT_TOO_LARGE = "fullDocumentTooLarge";

    /** The event's own fields around the documents: operation type, namespace, rename target, times, field names. */
    private static final int EVENT_OVERHEAD_BYTES = 1024;

    /** Namespace-wide events that carry no {@code ns.coll}, which a collection filter would otherwise drop. */
    private static final List<String> DATABASE_WIDE_TYPES = List.of("dropDatabase", "invalidate");

    private static final JsonWriterSettings COMPACT =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private ChangeStreamPipeline() {}

    /**
     * The pipeline, as the connector's {@code pipeline} option takes it (a JSON array).
     *
     * @param rules the rules whose namespaces lie in the connector's database; at least one
     * @param maxDocumentKeyBytes the largest document key, in bytes of BSON, whose events pass
     * @param preImages whether some rule's expired records carry the pre-image: the projection then keeps {@code
     *     fullDocumentBeforeChange}, whole up to {@link #PRE_IMAGE_MAX_BYTES} and else as the {@link #PRE_IMAGE_TOO_LARGE} marker
     */
    static String json(List<TtlRule> rules, int maxDocumentKeyBytes, SourceProfile profile, boolean preImages) {
        List<BsonDocument> stages;
        if (profile.requiresFixedPipeline()) {
            stages = COSMOS_PIPELINE;
        } else if (profile.takesFullPipeline()) {
            stages = new ArrayList<>();
            stages.add(new BsonDocument("$match", match(rules)));
            stages.add(new BsonDocument("$match", keySizeMatch(maxDocumentKeyBytes)));
            if (preImages) {
                // A copy of the pre-image, which the projection cuts down to the rules' fields: the marker.
                stages.add(new BsonDocument("$addFields", new BsonDocument(PRE_IMAGE_TOO_LARGE, fieldPath(PRE_IMAGE))));
            }
            stages.add(new BsonDocument("$project", projection(rules, preImages)));
            stages.add(new BsonDocument("$set", sizeBounds(preImages)));
        } else {
            // $expr and $bsonSize are not among what these services document for change streams: the processor's
            // own bound (it dead-letters larger keys) is what remains.
            stages = List.of(
                    new BsonDocument("$match", match(rules)),
                    new BsonDocument("$project", projection(rules, preImages)));
        }
        return stages.stream().map(stage -> stage.toJson(COMPACT)).collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * The change stream Cosmos DB for MongoDB (RU) requires, as its documentation gives it: these operations (it
     * reports no deletes) and this projection, nothing else; so every event carries the whole document and neither
     * operation type nor times.
     */
    private static final List<BsonDocument> COSMOS_PIPELINE = List.of(
            BsonDocument.parse("{$match: {operationType: {$in: ['insert', 'update', 'replace']}}}"),
            BsonDocument.parse("{$project: {_id: 1, fullDocument: 1, ns: 1, documentKey: 1}}"));

    /**
     * The stages Cosmos DB for MongoDB (RU) requires, as JSON, for a stand-in that emulates it and puts its own
     * stages after them.
     */
    public static List<String> cosmosStages() {
        return COSMOS_PIPELINE.stream().map(stage -> stage.toJson(COMPACT)).toList();
    }

    /**
     * The largest source record (key and value, as extended JSON) the pipeline can produce, which the
     * source connector's producer is rendered to send ({@code producer.override.max.request.size}) and its topics to
     * take ({@code max.message.bytes}): the pre-image (at most {@link #PRE_IMAGE_MAX_BYTES}) or else the marker
     * (at most {@link #RULE_FIELDS_MAX_BYTES}), {@code fullDocument} (as much), the document key four times (the
     * record key, {@code documentKey}, and the resume token, which encodes it in hexadecimal) and the event's own
     * fields, times the most one byte of BSON becomes as extended JSON ({@link CanonicalJson#MAX_GROWTH}).
     * Typical documents grow by a fraction, not sixteenfold: the bound is what can be proven, not what is expected.
     *
     * @param maxDocumentKeyBytes the largest document key an event passes, in bytes of BSON
     * @param preImages whether the events carry pre-images (or their markers)
     */
    public static int maxRecordBytes(int maxDocumentKeyBytes, boolean preImages) {
        long bson = (preImages ? (long) Math.max(PRE_IMAGE_MAX_BYTES, RULE_FIELDS_MAX_BYTES) : 0)
                + RULE_FIELDS_MAX_BYTES
                + 4L * maxDocumentKeyBytes
                + EVENT_OVERHEAD_BYTES;
        return Math.toIntExact(bson * CanonicalJson.MAX_GROWTH);
    }

    /** The exact collections the rules name, in rule order; empty when some rule covers the whole database. */
    static List<String> exactCollections(List<TtlRule> rules) {
        if (rules.stream().anyMatch(rule -> rule.namespace().collection() == null)) {
            return List.of();
        }
        return rules.stream()
                .map(rule -> rule.namespace().collection())
                .distinct()
                .toList();
    }

    /**
     * The document paths the rules read: each rule's date field, per-document TTL field, modified field and
     * partial-filter paths, plus {@code _id}; a path under another listed path is left out, because MongoDB rejects
     * such a projection as a path collision and the parent already carries it.
     *
     * @param rules the rules that apply to the documents read; every rule of a namespace, since the processor
     *     evaluates them all on each document and a field projected away reads as missing
     */
    public static List<String> documentPaths(List<TtlRule> rules) {
        Set<String> paths = new TreeSet<>();
        paths.add(DOCUMENT_ID);
        for (TtlRule rule : rules) {
            if (rule.field() != null) {
                paths.add(rule.field());
            }
            if (rule.documentTtlField() != null) {
                paths.add(rule.documentTtlField());
            }
            if (rule.modifiedField() != null) {
                // Pinned in the delete filter: projected away, it would pin {"$exists": false}, which never matches.
                paths.add(rule.modifiedField());
            }
            if (rule.partialFilter() != null) {
                addFilterPaths(rule.partialFilter().expression(), paths);
            }
            if (rule.mark() != null) {
                // The mark's confirmation is the field set to the deadline, and a marked document is never marked
                // again: projected away, every mark would look undone.
                paths.add(rule.mark().field());
            }
        }
        return paths.stream()
                .filter(path -> paths.stream().noneMatch(other -> path.startsWith(other + ".")))
                .toList();
    }

    private static BsonDocument match(List<TtlRule> rules) {
        BsonDocument match = new BsonDocument("operationType", in(OPERATION_TYPES));
        List<String> collections = exactCollections(rules);
        if (!collections.isEmpty()) {
            // A rename into a watched collection (dropTarget) replaces its documents, so the target counts too.
            match.append(
                    "$or",
                    new BsonArray(List.of(
                            new BsonDocument("ns.coll", in(collections)),
                            new BsonDocument("to.coll", in(collections)),
                            new BsonDocument("operationType", in(DATABASE_WIDE_TYPES)))));
        }
        return match;
    }

    /**
     * {@code $bsonSize} (MongoDB 4.4+) of the document key at most the bound. Namespace-wide events have no
     * documentKey: the size of a missing value is null, which sorts before every number, so they pass.
     */
    private static BsonDocument keySizeMatch(int maxDocumentKeyBytes) {
        return new BsonDocument("$expr", fits("documentKey", maxDocumentKeyBytes));
    }

    private static BsonDocument projection(List<TtlRule> rules, boolean preImages) {
        BsonDocument projection = new BsonDocument();
        EVENT_FIELDS.forEach(field -> projection.append(field, new BsonInt32(1)));
        if (preImages) {
            // Projected away, the pre-image the connector asked for would never reach Kafka.
            projection.append(PRE_IMAGE, new BsonInt32(1));
        }
        documentPaths(rules).forEach(path -> projection.append("fullDocument." + path, new BsonInt32(1)));
        if (preImages) {
            documentPaths(rules).forEach(path -> projection.append(PRE_IMAGE_TOO_LARGE + "." + path, new BsonInt32(1)));
        }
        return projection;
    }

    /**
     * The bounds, by {@code $bsonSize} (MongoDB 4.4+): {@code fullDocument} of at most {@link #RULE_FIELDS_MAX_BYTES},
     * else none and its size in {@link #FULL_DOCUMENT_TOO_LARGE}; with pre-images, either the whole pre-image, of at
     * most {@link #PRE_IMAGE_MAX_BYTES}, or the marker, never both, the marker cut to its {@code _id} beyond {@link
     * #RULE_FIELDS_MAX_BYTES}. An event without one of them has none of its fields: the size of a missing value is
     * null, which sorts before every number, and a missing value ({@code $$REMOVE}) sets nothing.
     */
    private static BsonDocument sizeBounds(boolean preImages) {
        BsonString remove = new BsonString("$$REMOVE");
        BsonDocument documentFits = fits(FULL_DOCUMENT, RULE_FIELDS_MAX_BYTES);
        BsonDocument bounds = new BsonDocument(FULL_DOCUMENT, cond(documentFits, fieldPath(FULL_DOCUMENT), remove))
                .append(
                        FULL_DOCUMENT_TOO_LARGE,
                        cond(documentFits, remove, new BsonDocument("$bsonSize", fieldPath(FULL_DOCUMENT))));
        if (preImages) {
            BsonDocument preImageFits = fits(PRE_IMAGE, PRE_IMAGE_MAX_BYTES);
            BsonDocument markerIdOnly =
                    new BsonDocument(DOCUMENT_ID, fieldPath(PRE_IMAGE_TOO_LARGE + "." + DOCUMENT_ID));
            bounds.append(PRE_IMAGE, cond(preImageFits, fieldPath(PRE_IMAGE), remove))
                    .append(
                            PRE_IMAGE_TOO_LARGE,
                            cond(
                                    preImageFits,
                                    remove,
                                    cond(
                                            fits(PRE_IMAGE_TOO_LARGE, RULE_FIELDS_MAX_BYTES),
                                            fieldPath(PRE_IMAGE_TOO_LARGE),
                                            markerIdOnly)));
        }
        return bounds;
    }

    /** {@code $bsonSize} of {@code field} at most {@code maxBytes}. */
    private static BsonDocument fits(String field, int maxBytes) {
        return new BsonDocument(
                "$lte",
                new BsonArray(List.of(new BsonDocument("$bsonSize", fieldPath(field)), new BsonInt32(maxBytes))));
    }

    private static BsonDocument cond(BsonValue condition, BsonValue then, BsonValue otherwise) {
        return new BsonDocument("$cond", new BsonArray(List.of(condition, then, otherwise)));
    }

    private static BsonString fieldPath(String field) {
        return new BsonString("$" + field);
    }

    /** Field paths of a partial filter: keys outside operators, and those inside {@code $and}'s and {@code $or}'s. */
    private static void addFilterPaths(BsonDocument expression, Set<String> paths) {
        for (Map.Entry<String, BsonValue> entry : expression.entrySet()) {
            if (entry.getKey().equals("$and") || entry.getKey().equals("$or")) {
                entry.getValue().asArray().forEach(clause -> addFilterPaths(clause.asDocument(), paths));
            } else if (!entry.getKey().startsWith("$")) {
                paths.add(entry.getKey());
            }
        }
    }

    private static BsonDocument in(List<String> values) {
        return new BsonDocument(
                "$in", new BsonArray(values.stream().map(BsonString::new).toList()));
    }
}
