package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How MongoDB (5.0 and later) describes an update made with an aggregation pipeline: it compares the document before
 * and after, field by field in order, and logs the difference as a delta ({@code $v: 2}), unless the delta is not
 * smaller than the new document, in which case it logs the whole document as a replacement. A change stream reports
 * the delta as an {@code update} event and a replacement as a {@code replace} event.
 *
 * <ul>
 *   <li>A field in both documents whose values differ: both sub-documents or both arrays are compared in turn (a
 *       sub-document's changed fields reported as {@code a.b}, an array's changed elements as {@code arr.3}, and an
 *       array that became shorter in {@code truncatedArrays}), unless that nested difference is not smaller than the
 *       new value, which is then reported whole; any other value is reported whole.</li>
 *   <li>A field only in the document before is removed ({@code removedFields}); a field only after, or one that moved
 *       behind a removed one, is reported whole in {@code updatedFields}.</li>
 *   <li>The sizes compared are those of the delta as MongoDB's format writes it ({@code d}, {@code u}, {@code i} and
 *       {@code s<field>} sections for documents; {@code a}, {@code l}, {@code u<index>} and {@code s<index>} for
 *       arrays), 15 bytes of the oplog entry's own fields counted with the top-level delta.</li>
 * </ul>
 *
 * <p>Values are compared as their BSON would be: field order matters, and an {@code int} 1 differs from a
 * {@code double} 1.0.
 */
final class DocumentDiff {

    /** What the oplog entry of a delta adds to it ({@code $v} and {@code diff}), counted as MongoDB counts it. */
    private static final int DELTA_METADATA_BYTES = 15;

    private DocumentDiff() {}

    /** The difference of a document: removed, updated and inserted fields, and nested differences. */
    private static final class ObjectDiff {
        final List<String> deletes = new ArrayList<>();
        final Map<String, Object> updates = new LinkedHashMap<>();
        final Map<String, Object> inserts = new LinkedHashMap<>();
        final Map<String, Object> subDiffs = new LinkedHashMap<>();

        Document serialize() {
            Document out = new Document();
            if (!deletes.isEmpty()) {
                Document section = new Document();
                deletes.forEach(field -> section.append(field, false));
                out.append("d", section);
            }
            if (!updates.isEmpty()) {
                out.append("u", new Document(updates));
            }
            if (!inserts.isEmpty()) {
                out.append("i", new Document(inserts));
            }
            subDiffs.forEach((field, sub) -> out.append("s" + field, DocumentDiff.serialize(sub)));
            return out;
        }
    }

    /** The difference of an array: a new, shorter length, and the elements that changed or were appended. */
    private static final class ArrayDiff {
        Integer resize;
        /** Index → the new value, or the nested {@link ObjectDiff}/{@link ArrayDiff}. */
        final TreeMap<Integer, Object> changes = new TreeMap<>();

        final Set<Integer> nested = new TreeSet<>();

        Document serialize() {
            Document out = new Document("a", true);
            if (resize != null) {
                out.append("l", resize);
            }
            changes.forEach((index, change) -> {
                if (nested.contains(index)) {
                    out.append("s" + index, DocumentDiff.serialize(change));
                } else {
                    out.append("u" + index, change);
                }
            });
            return out;
        }
    }

    /**
     * The description of a pipeline update from {@code before} to {@code after}: empty when MongoDB would log it as
     * a replacement (a {@code replace} event), else its {@code updateDescription} and, for ambiguous paths, their
     * components.
     */
    static Optional<UpdateDescriptions.Described> describe(Document before, Document after) {
        ObjectDiff diff = diffDocuments(before, after, DELTA_METADATA_BYTES);
        if (diff == null || size(diff.serialize()) >= size(after)) {
            return Optional.empty();
        }
        UpdateDescriptions.Builder description = new UpdateDescriptions.Builder();
        report(diff, List.of(), description);
        return Optional.of(description.build());
    }

    /** The difference, or null when it is not smaller than {@code after} with {@code padding} bytes added. */
    private static ObjectDiff diffDocuments(Document before, Document after, int padding) {
        ObjectDiff diff = new ObjectDiff();
        Iterator<Map.Entry<String, Object>> was = before.entrySet().iterator();
        Iterator<Map.Entry<String, Object>> is = after.entrySet().iterator();
        Map.Entry<String, Object> old = next(was);
        Map.Entry<String, Object> now = next(is);
        Set<String> mismatched = new TreeSet<>(); // sorted, as MongoDB collects them
        while (old != null && now != null) {
            if (old.getKey().equals(now.getKey())) {
                if (!sameBson(old.getValue(), now.getValue())) {
                    diffValues(old.getValue(), now.getValue(), old.getKey(), diff);
                }
                old = next(was);
                now = next(is);
            } else {
                // Not in the same place after: removed, unless it comes back among the fields inserted below.
                mismatched.add(old.getKey());
                old = next(was);
            }
        }
        for (; old != null; old = next(was)) {
            diff.deletes.add(old.getKey());
        }
        for (; now != null; now = next(is)) {
            diff.inserts.put(now.getKey(), now.getValue());
            mismatched.remove(now.getKey());
        }
        diff.deletes.addAll(mismatched);
        return size(diff.serialize()) + padding < size(after) ? diff : null;
    }

    /** The difference of two arrays, or null when it is not smaller than {@code after}. */
    private static ArrayDiff diffArrays(List<?> before, List<?> after) {
        ArrayDiff diff = new ArrayDiff();
        int index = 0;
        for (; index < before.size() && index < after.size(); index++) {
            Object old = before.get(index);
            Object now = after.get(index);
            if (sameBson(old, now)) {
                continue;
            }
            Object nested = nestedDiff(old, now);
            if (nested != null) {
                diff.changes.put(index, nested);
                diff.nested.add(index);
            } else {
                diff.changes.put(index, now);
            }
        }
        for (; index < after.size(); index++) {
            diff.changes.put(index, after.get(index));
        }
        if (before.size() > after.size()) {
            diff.resize = after.size();
        }
        return size(diff.serialize()) < size(asDocument(after)) ? diff : null;
    }

    private static void diffValues(Object old, Object now, String field, ObjectDiff into) {
        Object nested = nestedDiff(old, now);
        if (nested != null) {
            into.subDiffs.put(field, nested);
        } else {
            into.updates.put(field, now);
        }
    }

    /** The nested difference of two sub-documents or two arrays; null for other values or a difference too large. */
    private static Object nestedDiff(Object old, Object now) {
        if (old instanceof Document oldDocument && now instanceof Document newDocument) {
            return diffDocuments(oldDocument, newDocument, 0);
        }
        if (old instanceof List<?> oldList && now instanceof List<?> newList) {
            return diffArrays(oldList, newList);
        }
        return null;
    }

    private static void report(Object diff, List<Object> path, UpdateDescriptions.Builder description) {
        if (diff instanceof ObjectDiff object) {
            object.deletes.forEach(field -> description.removed(child(path, field)));
            object.updates.forEach((field, value) -> description.updated(child(path, field), value));
            object.inserts.forEach((field, value) -> description.updated(child(path, field), value));
            object.subDiffs.forEach((field, sub) -> report(sub, child(path, field), description));
        } else if (diff instanceof ArrayDiff array) {
            if (array.resize != null) {
                description.truncated(path, array.resize);
            }
            array.changes.forEach((index, change) -> {
                if (array.nested.contains(index)) {
                    report(change, child(path, index), description);
                } else {
                    description.updated(child(path, index), change);
                }
            });
        }
    }

    private static List<Object> child(List<Object> path, Object component) {
        List<Object> child = new ArrayList<>(path.size() + 1);
        child.addAll(path);
        child.add(component);
        return child;
    }

    private static Object serialize(Object diff) {
        return diff instanceof ObjectDiff object ? object.serialize() : ((ArrayDiff) diff).serialize();
    }

    private static <T> T next(Iterator<T> iterator) {
        return iterator.hasNext() ? iterator.next() : null;
    }

    /** Equality of the BSON two values would be written as: field order and numeric types count. */
    static boolean sameBson(Object a, Object b) {
        if (a instanceof Document first && b instanceof Document second) {
            if (first.size() != second.size()) {
                return false;
            }
            Iterator<Map.Entry<String, Object>> one = first.entrySet().iterator();
            Iterator<Map.Entry<String, Object>> two = second.entrySet().iterator();
            while (one.hasNext()) {
                Map.Entry<String, Object> x = one.next();
                Map.Entry<String, Object> y = two.next();
                if (!x.getKey().equals(y.getKey()) || !sameBson(x.getValue(), y.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof List<?> first && b instanceof List<?> second) {
            if (first.size() != second.size()) {
                return false;
            }
            for (int i = 0; i < first.size(); i++) {
                if (!sameBson(first.get(i), second.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof byte[] first && b instanceof byte[] second) {
            return Arrays.equals(first, second);
        }
        return a != null && b != null ? a.getClass() == b.getClass() && a.equals(b) : Objects.equals(a, b);
    }

    /** An array as BSON stores it: a document whose keys are the indexes. */
    private static Document asDocument(List<?> array) {
        Document document = new Document();
        for (int i = 0; i < array.size(); i++) {
            document.append(Integer.toString(i), array.get(i));
        }
        return document;
    }

    /** The size of {@code document}'s BSON, in bytes. */
    static int size(Document document) {
        ByteBuf buffer = Unpooled.buffer();
        try {
            BsonEncoder.encodeDocument(document, buffer);
            return buffer.writerIndex();
        } finally {
            buffer.release();
        }
    }
}
