package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** mongo-java-server's in-memory database, whose collections are {@link StandInCollection}s. */
final class StandInDatabase extends MemoryDatabase {

    private final ChangeRecorder recorder;
    /** Every collection this database created; some may have been dropped or renamed into another database since. */
    private final Set<StandInCollection> created = ConcurrentHashMap.newKeySet();

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
        StandInCollection collection = new StandInCollection(this, collectionName, options, cursorRegistry, recorder);
        created.add(collection);
        return collection;
    }

    /** The collections this database created, wherever they are now, if anywhere. */
    Set<StandInCollection> created() {
        return created;
    }
}
