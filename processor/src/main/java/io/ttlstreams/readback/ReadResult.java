package io.ttlstreams.readback;

import org.bson.BsonDocument;

/**
 * What reading one document back found.
 *
 * @param request what was asked
 * @param kind whether the document was found, is absent, or could not be read
 * @param document the document as read, projected to the fields the rules read; null unless {@link Kind#PRESENT}
 */
public record ReadResult(ReadRequest request, Kind kind, BsonDocument document) {

    /** The three answers a read can give. */
    public enum Kind {
        /** The collection holds the document. */
        PRESENT,
        /** The collection holds no document with this {@code _id}. */
        ABSENT,
        /** MongoDB could not be read, or the answer was ambiguous: nothing is known about the document. */
        FAILED
    }

    static ReadResult present(ReadRequest request, BsonDocument document) {
        return new ReadResult(request, Kind.PRESENT, document);
    }

    static ReadResult absent(ReadRequest request) {
        return new ReadResult(request, Kind.ABSENT, null);
    }

    static ReadResult failed(ReadRequest request) {
        return new ReadResult(request, Kind.FAILED, null);
    }
}
