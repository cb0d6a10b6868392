package io.ttlstreams.contract;

import org.bson.BsonDocument;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Canonical extended JSON ({@link JsonMode#EXTENDED}), the one JSON form of BSON in this project: every value keeps
 * its BSON type (a 64-bit integer stays {@code {"$numberLong": ...}}, a date {@code {"$date": ...}}), and the same
 * document always gives the same string. The MongoDB source connector's {@code ExtendedJson} formatter writes the
 * same form, so a document key rendered here equals the connector's record key.
 */
public final class CanonicalJson {

    /** The writer settings. */
    public static final JsonWriterSettings SETTINGS =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private CanonicalJson() {}

    /** {@code document} as canonical extended JSON. */
    public static String of(BsonDocument document) {
        return document.toJson(SETTINGS);
    }
}
