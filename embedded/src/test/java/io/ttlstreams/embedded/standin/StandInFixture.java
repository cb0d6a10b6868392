package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import io.ttlstreams.embedded.EmbeddedMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A stand-in and an official Java driver client on it for each test (a JUnit extension), for the fidelity tests: the operations an application makes,
 * and the change events compared with the shapes MongoDB's manual documents. The fields that vary per run (the resume
 * token, {@code clusterTime}, {@code wallTime}, {@code collectionUUID}) are checked for their BSON types and compared
 * apart ({@link #stable}).
 */
final class StandInFixture implements BeforeEachCallback, AfterEachCallback {

    EmbeddedMongo mongo;
    MongoClient client;
    MongoDatabase app;

    /** A stand-in of its own for each test, with a history of 200 changes. */
    @Override
    public void beforeEach(ExtensionContext context) {
        mongo = EmbeddedMongo.start(0, 200);
        client = MongoClients.create(mongo.connectionString());
        app = client.getDatabase("app");
    }

    @Override
    public void afterEach(ExtensionContext context) {
        client.close();
        mongo.close();
    }

    /** A stream's cursor of raw events, each getMore awaiting events for at most 200 ms. */
    static MongoCursor<RawBsonDocument> open(ChangeStreamIterable<?> stream) {
        return stream.maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .withDocumentClass(RawBsonDocument.class)
                .cursor();
    }

    /** The next {@code count} events of a stream, waiting for each (the stream's getMore awaits). */
    static List<BsonDocument> next(MongoCursor<RawBsonDocument> cursor, int count) {
        List<BsonDocument> events = new ArrayList<>();
        while (events.size() < count) {
            events.add(cursor.next());
        }
        return events;
    }

    /**
     * The event without the fields that vary per run, after checking they are there and of MongoDB's types: {@code
     * _id} a resume token, {@code clusterTime} a timestamp, {@code wallTime} a date, and {@code collectionUUID}, where
     * present, a UUID (binary subtype 4).
     */
    static BsonDocument stable(BsonDocument event) {
        assertThat(event.get("_id").isDocument()
                        && event.getDocument("_id").get("_data").isString())
                .as("_id is a resume token {_data: <string>}: %s", event)
                .isTrue();
        assertThat(event.get("clusterTime").isTimestamp())
                .as("clusterTime: %s", event)
                .isTrue();
        assertThat(event.get("wallTime").isDateTime()).as("wallTime: %s", event).isTrue();
        if (event.containsKey("collectionUUID")) {
            assertThat(event.get("collectionUUID").isBinary()
                            && event.getBinary("collectionUUID").getType()
                                    == BsonBinarySubType.UUID_STANDARD.getValue())
                    .as("collectionUUID is a UUID: %s", event)
                    .isTrue();
        }
        BsonDocument rest = new BsonDocument();
        event.forEach(rest::put);
        rest.remove("_id");
        rest.remove("clusterTime");
        rest.remove("wallTime");
        rest.remove("collectionUUID");
        return rest;
    }

    /** The {@code collectionUUID} of an event. */
    static UUID collectionUuid(BsonDocument event) {
        return event.getBinary("collectionUUID").asUuid();
    }

    /** The UUID {@code listCollections} reports for a collection of {@code database}. */
    static UUID listedUuid(MongoDatabase database, String collection) {
        BsonDocument listed = database
                .listCollections(BsonDocument.class)
                .filter(new org.bson.Document("name", collection))
                .into(new ArrayList<>())
                .stream()
                .filter(description -> description.getString("name").getValue().equals(collection))
                .findFirst()
                .orElseThrow();
        return listed.getDocument("info").getBinary("uuid").asUuid();
    }

    static BsonDocument json(String json) {
        return BsonDocument.parse(json);
    }
}
