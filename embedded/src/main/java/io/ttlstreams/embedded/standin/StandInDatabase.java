package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;

/** mongo-java-server's in-memory database, whose collections are {@link StandInCollection}s. */
final class StandInDatabase extends MemoryDatabase {

    private final ChangeRecorder recorder;

    StandInDatabase(String databaseName, CursorRegistry cursorRegistry, ChangeRecorder recorder) {
        super(databaseName, cursorRegistry);
        this.recorder = recorder;
    }

    @Override
    protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        // The superclass constructor creates the system collections before recorder is set: they report nothing.
        if (recorder == null) {
            return super.openOrCreateCollection(collectionName, options);
        }
        return new StandInCollection(this, collectionName, options, cursorRegistry, recorder);
    }
}
