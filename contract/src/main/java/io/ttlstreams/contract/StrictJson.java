package io.ttlstreams.contract;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonReader;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.codecs.BsonValueCodec;
import org.bson.codecs.DecoderContext;
import org.bson.json.JsonParseException;
import org.bson.json.JsonReader;

/**
 * Parses extended JSON as {@link BsonDocument#parse} does (the MongoDB sink connector's own parser), but refuses a
 * field name that appears twice in one document: {@code BsonDocument.parse} keeps the last value, another reader
 * could keep the first, and a check must never look at a different document than the one that gets applied.
 */
final class StrictJson {

    private static final BsonValueCodec VALUE_CODEC = new BsonValueCodec();
    private static final DecoderContext CONTEXT = DecoderContext.builder().build();

    private StrictJson() {}

    /**
     * @param what names the text in the error, e.g. "record key"
     * @throws InvalidDeleteCommandException when {@code json} is not one extended-JSON document or repeats a name
     */
    static BsonDocument parse(String json, String what) {
        try (JsonReader reader = new JsonReader(json)) {
            return readDocument(reader, what, "");
        } catch (JsonParseException | BsonInvalidOperationException e) {
            throw new InvalidDeleteCommandException(
                    "the " + what + " is not an extended-JSON document: " + e.getMessage());
        }
    }

    private static BsonDocument readDocument(BsonReader reader, String what, String path) {
        reader.readStartDocument();
        BsonDocument document = new BsonDocument();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = reader.readName();
            if (document.containsKey(name)) {
                throw new InvalidDeleteCommandException(
                        "the " + what + " repeats field '" + path + name + "': a command must be unambiguous");
            }
            document.put(name, readValue(reader, what, path + name + "."));
        }
        reader.readEndDocument();
        return document;
    }

    private static BsonValue readValue(BsonReader reader, String what, String path) {
        BsonType type = reader.getCurrentBsonType();
        if (type == BsonType.DOCUMENT) {
            return readDocument(reader, what, path);
        }
        if (type == BsonType.ARRAY) {
            reader.readStartArray();
            BsonArray array = new BsonArray();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                array.add(readValue(reader, what, path));
            }
            reader.readEndArray();
            return array;
        }
        return VALUE_CODEC.decode(reader, CONTEXT);
    }
}
