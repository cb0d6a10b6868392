package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.QueryMatcher;
import de.bwaldvogel.mongo.bson.Document;
import java.util.Comparator;
import java.util.List;

/**
 * The sharding catalog's {@code config.collections} as a {@code mongos} serves it ({@link StandInSettings#mongos()}):
 * one entry per sharded collection ({@link ShardKeys}), read with {@code find}, so that a client that looks a shard
 * key up there, as a cluster administrator's tools do, finds what it would find on a sharded cluster.
 *
 * <p>An entry holds the fields of MongoDB's that a client reads: {@code _id} (the namespace), {@code key}, {@code
 * unique} and {@code uuid}; the chunk versioning fields ({@code lastmodEpoch}, {@code lastmod}, {@code timestamp}) are
 * not played. The {@code filter} and {@code limit} of the {@code find} are applied; entries come in {@code _id} order,
 * all in the first batch (a catalog of a handful of collections).
 */
final class ShardingCatalog {

    private static final String NAMESPACE = "config.collections";

    private ShardingCatalog() {}

    /** True for a {@code find} on {@code config.collections}. */
    static boolean answers(String databaseName, String command, Document query) {
        return databaseName.equals("config")
                && command.equalsIgnoreCase("find")
                && "collections".equals(query.get(command));
    }

    /** Answers the {@code find} {@code query} from the collections that exist now. */
    static Document find(Document query, List<StandInCollection> live) {
        Document filter = query.get("filter") instanceof Document given ? given : new Document();
        QueryMatcher matcher = new DefaultQueryMatcher();
        long limit = query.get("limit") instanceof Number number ? Math.abs(number.longValue()) : 0;
        List<Document> entries = live.stream()
                .filter(collection -> collection.shardKey() != null)
                .map(ShardingCatalog::entry)
                .filter(entry -> matcher.matches(entry, filter))
                .sorted(Comparator.comparing(entry -> (String) entry.get("_id")))
                .limit(limit > 0 ? limit : Long.MAX_VALUE)
                .toList();
        return new Document(
                        "cursor", new Document("id", 0L).append("ns", NAMESPACE).append("firstBatch", entries))
                .append("ok", 1.0);
    }

    private static Document entry(StandInCollection collection) {
        return new Document("_id", collection.getDatabaseName() + "." + collection.getCollectionName())
                .append("key", collection.shardKey().cloneDeeply())
                .append("unique", collection.uniqueShardKey())
                .append("uuid", collection.collectionUuid());
    }
}
