package io.ttlstreams.readback;

import io.ttlstreams.contract.Namespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** A {@link DocumentReader} answering from a map, recording each look-up; it fails every read while told to. */
public final class MapDocumentReader implements DocumentReader {

    /** One look-up: the namespace and the ids asked for. */
    public record LookUp(Namespace namespace, List<BsonValue> ids) {}

    private final Map<Namespace, Map<BsonValue, BsonDocument>> documents = new HashMap<>();
    private final List<LookUp> lookUps = new ArrayList<>();
    private boolean failing;

    /** Puts {@code document} (with its {@code _id}) into {@code namespace}. */
    public MapDocumentReader put(Namespace namespace, BsonDocument document) {
        documents.computeIfAbsent(namespace, ns -> new HashMap<>()).put(document.get("_id"), document);
        return this;
    }

    /** Makes every following read fail (true) or succeed again (false). */
    public MapDocumentReader failing(boolean failing) {
        this.failing = failing;
        return this;
    }

    /** The look-ups so far, in order. */
    public List<LookUp> lookUps() {
        return List.copyOf(lookUps);
    }

    @Override
    public List<BsonDocument> read(Namespace namespace, List<BsonValue> ids) {
        lookUps.add(new LookUp(namespace, List.copyOf(ids)));
        if (failing) {
            throw new IllegalStateException("MongoDB unreachable (test)");
        }
        Map<BsonValue, BsonDocument> collection = documents.getOrDefault(namespace, Map.of());
        return ids.stream().filter(collection::containsKey).map(collection::get).toList();
    }
}
