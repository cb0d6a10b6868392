package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The stand-in's data in a file, written when it stops and read when it starts on the same data directory: the
 * collections (with their UUIDs, whether they record pre- and post-images, their shard keys), their documents, the pre- and
 * post-image retention, and the history's epoch and next position, so that the resume tokens the source connectors
 * stored with Kafka's state stay valid. A sequence of BSON documents: a header {@code {epoch, next, collections:
 * [{db, coll, uuid, preAndPostImages, shardKey, uniqueShardKey}], expireAfterSeconds}} ({@code shardKey} only for a
 * sharded collection; a file of an earlier version has only {@code epoch} and
 * {@code next}), then one {@code {db, coll, doc}} per document. Indexes other than {@code _id} are not kept.
 */
final class StandInSnapshot {

    /**
     * The header: where the history continues, and what the collections and the cluster were set to.
     *
     * @param collections        every collection, also empty ones
     * @param expireAfterSeconds the image retention ({@link ImageRetention}), null for "off"
     */
    record Header(long epoch, long next, List<CollectionEntry> collections, Long expireAfterSeconds) {}

    /**
     * One collection's identity and settings.
     *
     * @param shardKey       the collection's shard key ({@link ShardKeys}), null when it is not sharded
     * @param uniqueShardKey whether it was sharded with {@code unique: true}
     */
    record CollectionEntry(
            String database,
            String collection,
            UUID uuid,
            boolean preAndPostImages,
            Document shardKey,
            boolean uniqueShardKey) {}

    /** One stored document. */
    record Entry(String database, String collection, Document document) {}

    /** What a file held. */
    record Contents(Header header, List<Entry> entries) {}

    private StandInSnapshot() {}

    /** Writes the header and entries to {@code file}, replacing it only once complete. */
    static void write(Path file, Header header, Iterable<Entry> entries) throws IOException {
        Files.createDirectories(file.getParent());
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(partial))) {
            List<Document> collections = new ArrayList<>();
            for (CollectionEntry collection : header.collections()) {
                collections.add(new Document("db", collection.database())
                        .append("coll", collection.collection())
                        .append("uuid", collection.uuid())
                        .append("preAndPostImages", collection.preAndPostImages()));
                if (collection.shardKey() != null) {
                    collections
                            .get(collections.size() - 1)
                            .append("shardKey", collection.shardKey())
                            .append("uniqueShardKey", collection.uniqueShardKey());
                }
            }
            Document written = new Document("epoch", header.epoch())
                    .append("next", header.next())
                    .append("collections", collections);
            if (header.expireAfterSeconds() != null) {
                written.append("expireAfterSeconds", header.expireAfterSeconds());
            }
            writeDocument(out, written);
            for (Entry entry : entries) {
                writeDocument(
                        out,
                        new Document("db", entry.database())
                                .append("coll", entry.collection())
                                .append("doc", entry.document()));
            }
        }
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Reads {@code file}; empty when there is none. */
    static Optional<Contents> read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            Document header = readDocument(in).orElseThrow(() -> new IOException(file + " has no header"));
            List<Entry> entries = new ArrayList<>();
            Optional<Document> record;
            while ((record = readDocument(in)).isPresent()) {
                Document entry = record.get();
                entries.add(
                        new Entry((String) entry.get("db"), (String) entry.get("coll"), (Document) entry.get("doc")));
            }
            List<CollectionEntry> collections = new ArrayList<>();
            if (header.get("collections") instanceof List<?> list) {
                for (Object item : list) {
                    Document collection = (Document) item;
                    collections.add(new CollectionEntry(
                            (String) collection.get("db"),
                            (String) collection.get("coll"),
                            (UUID) collection.get("uuid"),
                            Boolean.TRUE.equals(collection.get("preAndPostImages")),
                            collection.get("shardKey") instanceof Document shardKey ? shardKey : null,
                            Boolean.TRUE.equals(collection.get("uniqueShardKey"))));
                }
            }
            Long expireAfterSeconds =
                    header.get("expireAfterSeconds") instanceof Number seconds ? seconds.longValue() : null;
            return Optional.of(new Contents(
                    new Header(
                            ((Number) header.get("epoch")).longValue(),
                            ((Number) header.get("next")).longValue(),
                            collections,
                            expireAfterSeconds),
                    entries));
        }
    }

    private static void writeDocument(OutputStream out, Document document) throws IOException {
        ByteBuf buffer = Unpooled.buffer();
        try {
            BsonEncoder.encodeDocument(document, buffer);
            buffer.readBytes(out, buffer.readableBytes());
        } finally {
            buffer.release();
        }
    }

    private static Optional<Document> readDocument(InputStream in) throws IOException {
        byte[] length = in.readNBytes(4);
        if (length.length == 0) {
            return Optional.empty();
        }
        if (length.length < 4) {
            throw new EOFException("truncated stand-in snapshot");
        }
        int size = (length[0] & 0xff) | (length[1] & 0xff) << 8 | (length[2] & 0xff) << 16 | (length[3] & 0xff) << 24;
        if (size < 5) {
            throw new IOException("corrupt stand-in snapshot (a document of " + size + " bytes)");
        }
        byte[] rest = in.readNBytes(size - 4);
        if (rest.length < size - 4) {
            throw new EOFException("truncated stand-in snapshot");
        }
        ByteBuf buffer = Unpooled.wrappedBuffer(length, rest);
        try {
            return Optional.of(BsonDecoder.decodeBson(buffer));
        } finally {
            buffer.release();
        }
    }
}
