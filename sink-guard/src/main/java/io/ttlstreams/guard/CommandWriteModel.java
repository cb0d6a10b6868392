package io.ttlstreams.guard;

import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.kafka.connect.sink.converter.SinkDocument;
import com.mongodb.kafka.connect.sink.writemodel.strategy.WriteModelStrategy;
import io.ttlstreams.contract.DeleteCommand;
import org.apache.kafka.connect.errors.DataException;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The MongoDB sink connector's write model for ttl-streams' commands ({@code writemodel.strategy}), for sinks whose
 * rules mark instead of deleting: a delete command becomes {@code deleteOne(filter)}, as the stock {@code
 * DeleteOneBusinessKeyStrategy} makes it, and a mark command {@code updateOne(filter, update)} with the update the
 * command carries, <em>never an upsert</em>, so that a filter that no longer matches (a renewed document) changes
 * nothing. The filter is the value's {@code _id}, as {@code ProvidedInValueStrategy} puts it there.
 *
 * <p>It trusts what the {@link DeleteCommandGuard} before it let through: a mark's update is then exactly {@code
 * {"$set": {<the namespace's mark field>: <the deadline>}}}. It runs inside the connector, so its jar goes into the
 * connector's plugin directory (connect/Dockerfile).
 */
public final class CommandWriteModel implements WriteModelStrategy {

    private static final UpdateOptions NO_UPSERT = new UpdateOptions().upsert(false);

    @Override
    public WriteModel<BsonDocument> createWriteModel(SinkDocument document) {
        BsonDocument value = document.getValueDoc()
                .orElseThrow(() -> new DataException("A ttl-streams command has a value; this record has none"));
        BsonValue filter = value.get(DeleteCommand.FILTER_FIELD);
        if (filter == null || !filter.isDocument()) {
            throw new DataException("A ttl-streams command's value holds its filter as a document in '"
                    + DeleteCommand.FILTER_FIELD + "'");
        }
        BsonValue update = value.get(DeleteCommand.UPDATE_FIELD);
        if (update == null) {
            return new DeleteOneModel<>(filter.asDocument());
        }
        if (!update.isDocument()) {
            throw new DataException("A mark command's '" + DeleteCommand.UPDATE_FIELD + "' is a document");
        }
        return new UpdateOneModel<>(filter.asDocument(), update.asDocument(), NO_UPSERT);
    }
}
