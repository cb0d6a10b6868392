package io.ttlstreams.readback;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.StandInMongo;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/** The MongoDB reader against the mongo-java-server stand-in: the look-up by _id and its projection. */
class MongoDocumentReaderTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void shouldReadTheAskedDocumentsWithOnlyTheFieldsTheRulesRead() {
        try (StandInMongo mongo = new StandInMongo()) {
            TtlStreamsConfig config =
                    TestConfigs.config("bootstrap.servers", "unused:9092", "application.id", "read-back-test");
            MongoCollection<BsonDocument> sessions =
                    mongo.client().getDatabase("app").getCollection("sessions", BsonDocument.class);
            BsonDateTime expireAt = new BsonDateTime(1_900_000_000_000L);
            for (String id : List.of("a", "b", "c")) {
                sessions.insertOne(new BsonDocument("_id", new BsonString(id))
                        .append("expireAt", expireAt)
                        .append("payload", new BsonInt32(42)));
            }

            List<BsonDocument> read = new MongoDocumentReader(mongo.client(), config.rules())
                    .read(SESSIONS, List.of(new BsonString("a"), new BsonString("c"), new BsonString("gone")));

            assertThat(read)
                    .containsExactlyInAnyOrder(
                            new BsonDocument("_id", new BsonString("a")).append("expireAt", expireAt),
                            new BsonDocument("_id", new BsonString("c")).append("expireAt", expireAt));
        }
    }
}
