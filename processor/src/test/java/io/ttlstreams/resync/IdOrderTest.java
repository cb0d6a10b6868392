package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The {@code _id} order a resync reads in, and the filter it resumes with, against the stand-in (which sorts by
 * MongoDB's comparison order and brackets {@code $gt} by type as MongoDB does).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class IdOrderTest {

    /** One {@code _id} of every type an {@code _id} may have and the stand-in knows, several of some. */
    private static final List<BsonValue> IDS = List.of(
            new BsonMinKey(),
            BsonNull.VALUE,
            new BsonInt32(-7),
            new BsonDouble(2.5),
            new BsonInt64(3),
            new BsonDecimal128(Decimal128.parse("4.5")),
            new BsonInt32(5),
            new BsonString(""),
            new BsonString("a"),
            new BsonString("b"),
            new BsonDocument("k", new BsonInt32(1)),
            new BsonDocument("k", new BsonInt32(2)),
            new BsonBinary(new byte[] {1}),
            new BsonObjectId(new ObjectId("000000000000000000000001")),
            new BsonObjectId(new ObjectId("000000000000000000000002")),
            BsonBoolean.FALSE,
            BsonBoolean.TRUE,
            new BsonDateTime(0),
            new BsonDateTime(1),
            new BsonTimestamp(1, 0),
            new BsonMaxKey());

    private StandInMongo mongo;
    private MongoCollection<BsonDocument> docs;

    @BeforeEach
    void start() {
        mongo = new StandInMongo();
        docs = mongo.client().getDatabase("app").getCollection("docs", BsonDocument.class);
        // Inserted in reverse, so that the natural order is not the _id order.
        for (int i = IDS.size() - 1; i >= 0; i--) {
            docs.insertOne(new BsonDocument("_id", IDS.get(i)));
        }
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    private List<BsonValue> ids(Iterable<BsonDocument> documents) {
        return java.util.stream.StreamSupport.stream(documents.spliterator(), false)
                .map(document -> document.get("_id"))
                .toList();
    }

    @Test
    void shouldReadInMongoDbsComparisonOrderAcrossTypesWhenSortedById() {
        assertThat(ids(docs.find().sort(IdOrder.SORT))).containsExactlyElementsOf(IDS);
    }

    /** A plain $gt would find only the rest of the last _id's type: after 5, no string, ObjectId or date. */
    @Test
    void shouldFindExactlyTheIdsAfterTheLastWhateverTheirTypeWhenResuming() {
        for (int i = 0; i < IDS.size(); i++) {
            BsonValue last = IDS.get(i);

            assertThat(ids(docs.find(IdOrder.after(last)).sort(IdOrder.SORT)))
                    .as("after %s", last)
                    .containsExactlyElementsOf(IDS.subList(i + 1, IDS.size()));
        }
    }
}
