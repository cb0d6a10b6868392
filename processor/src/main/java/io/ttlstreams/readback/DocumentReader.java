package io.ttlstreams.readback;

import io.ttlstreams.contract.Namespace;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Reads documents by {@code _id}, for the read-back of unconfirmed deletes; {@link MongoDocumentReader} in production,
 * a map in tests. Called from the read-back thread only.
 */
public interface DocumentReader {

    /**
     * The documents of {@code namespace} whose {@code _id} is one of {@code ids}, with at least {@code _id} and the
     * fields the namespace's rules read; an id without a document in the answer is absent from the collection.
     *
     * @throws RuntimeException when the documents cannot be read, which tells nothing about their presence
     */
    List<BsonDocument> read(Namespace namespace, List<BsonValue> ids);
}
