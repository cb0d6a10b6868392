package io.ttlstreams.config;

import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.rules.BsonPaths;
import io.ttlstreams.rules.ConfigValues;
import io.ttlstreams.rules.FieldFormat;
import io.ttlstreams.rules.MarkAction;
import io.ttlstreams.rules.PartialFilter;
import io.ttlstreams.rules.TtlMode;
import io.ttlstreams.rules.TtlRule;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;

/**
 * The options of one TTL rule. {@link TtlStreamsConfig} embeds them once per name listed in {@code ttl.rules}, under
 * {@code ttl.rule.<name>.}, so {@code ttl.rule.sessions.field} is the {@link #FIELD_CONFIG field} of rule
 * {@code sessions}.
 */
public final class RuleConfig {

    /** Rule options are {@code ttl.rule.<name>.<option>}. */
    public static final String PREFIX = "ttl.rule.";

    public static final String NAMESPACE_CONFIG = "namespace";
    public static final String NAMESPACE_DOC = "The collection the rule applies to, \"db.coll\", or every collection"
            + " of a database, \"db.*\" (which then needs ttl.source.topics).";

    public static final String MODE_CONFIG = "mode";
    public static final String MODE_DOC = "\"field\": a date field plus expire.after.seconds, like a MongoDB TTL"
            + " index. \"last-modified\": the time of the document's latest change plus expire.after.seconds, like"
            + " Cosmos DB's TTL.";

    public static final String FIELD_CONFIG = "field";
    public static final String FIELD_DOC = "Field mode only, and required there: the field holding the expiry date;"
            + " a dotted path such as session.expiresAt reaches into subdocuments. A date expires; an array expires"
            + " on its earliest date; any other value, or none, never expires.";

    public static final String EXPIRE_AFTER_SECONDS_CONFIG = "expire.after.seconds";
    public static final String EXPIRE_AFTER_SECONDS_DOC = "Seconds added to the field's date (field mode, default 0)"
            + " or to the change time (last-modified mode, required, at least 1). A whole number from 0 to"
            + " 2147483647, also written as a whole-number double (3600.0), as MongoDB reads it: NaN, negative,"
            + " fractional or larger values stop the application at start-up, unlike MongoDB, whose tolerance of NaN"
            + " once expired documents immediately; so does 0 on a last-modified rule, which would expire every"
            + " document the moment it is written (Cosmos DB refuses a default TTL of 0 for that reason). In"
            + " last-modified mode with document.ttl.field, -1 is Cosmos DB's container default of -1: TTL on, no"
            + " default, so only documents carrying their own TTL expire.";

    public static final String FIELD_FORMAT_CONFIG = "field.format";
    public static final String FIELD_FORMAT_DOC = "Field mode only: \"date\" counts BSON dates only; \"epoch-seconds\""
            + " and \"epoch-millis\" also read numbers (int, long, double, decimal) as epoch instants, as DynamoDB does."
            + " A number whose instant lies before 1971, after year 9999 or more than five years before the change is"
            + " not scheduled, and counted; one that looks like the other unit is flagged in the decision's reason.";

    public static final String PARTIAL_FILTER_CONFIG = "partial.filter";
    public static final String PARTIAL_FILTER_DOC = "Only documents matching this MongoDB partialFilterExpression"
            + " (JSON) are scheduled, and the delete re-checks it. Supported: equality, $eq, $exists, $gt, $gte, $lt,"
            + " $lte, $type, $in, $and, $or (as MongoDB 6.0 allows). Nested at most 100 levels deep, as MongoDB allows.";

    public static final String DOCUMENT_TTL_FIELD_CONFIG = "document.ttl.field";
    public static final String DOCUMENT_TTL_FIELD_DOC = "Last-modified mode only: a field whose value, in seconds,"
            + " overrides expire.after.seconds for its document, as Cosmos DB's ttl does. A positive 32-bit integer"
            + " (also as a long or a whole double) applies; -1 never expires; any other value is ignored and counted.";

    public static final String MODIFIED_FIELD_CONFIG = "modified.field";
    public static final String MODIFIED_FIELD_DOC = "Last-modified mode only: a field that changes on every write (an"
            + " updatedAt date or a version number, as Mongoose timestamps or an optimistic-lock counter keep it). Its"
            + " exact value joins the delete filter, so a modification made after the deadline was computed makes the"
            + " delete miss. Without it, a document modified while its delete command is on its way can be deleted"
            + " although it was just renewed. A resync counts from it when it holds a date.";

    public static final String ACTION_CONFIG = "action";
    public static final String ACTION_DOC = "What happens at the deadline: \"delete\" deletes the document (a"
            + " conditional deleteOne); \"mark\" sets mark.field to the deadline instead (a conditional updateOne"
            + " under the same filter, never an upsert), soft expiry: a marked document is never marked again, one"
            + " un-marked is scheduled again, and with delete.after.seconds it is deleted that long after its mark.";
    public static final String ACTION_DEFAULT = "delete";

    public static final String MARK_FIELD_CONFIG = "mark.field";
    public static final String MARK_FIELD_DOC = "With action mark, and required there: the field the mark sets to"
            + " the deadline, a dotted path (e.g. expiredAt). The sink guard lets through marks of this field only.";

    public static final String DELETE_AFTER_SECONDS_CONFIG = "delete.after.seconds";
    public static final String DELETE_AFTER_SECONDS_DOC = "With action mark: the grace period, in seconds; a marked"
            + " document is deleted this long after its mark, unless un-marked meanwhile (the delete pins the mark)."
            + " Unset: marked documents stay.";

    public static final String NOTICE_BEFORE_SECONDS_CONFIG = "notice.before.seconds";
    public static final String NOTICE_BEFORE_SECONDS_DOC = "Publishes an EXPIRING record to ttl.expired.topic this"
            + " many seconds before each deadline of the rule, once per deadline: none for a document renewed (or"
            + " deleted) before its notice, a new one for its new deadline, none for a deadline already closer than"
            + " this when it was scheduled. Needs ttl.expired.topic. Unset: no notices.";

    public static final String EXPIRED_DOCUMENT_CONFIG = "expired.document";
    public static final String EXPIRED_DOCUMENT_DOC = "What this rule's expired records (ttl.expired.topic) carry as"
            + " the document: \"pre-image\", the document as it was just before its delete, from the change stream's"
            + " fullDocumentBeforeChange (the collection needs changeStreamPreAndPostImages, MongoDB 6.0+; the source"
            + " connector is rendered to ask for it; refused at start-up on a service without pre-images, and without"
            + " ttl.expired.topic; a pre-image over 256 KiB of BSON is not carried, and the record says"
            + " documentState too-large); \"none\", no document.";
    public static final String EXPIRED_DOCUMENT_DEFAULT = "none";

    public static final String GUARD_MAX_DUE_ON_ARRIVAL_CONFIG = "guard.max.due.on.arrival";
    public static final String GUARD_MAX_DUE_ON_ARRIVAL_DOC = "This rule's "
            + SchedulerOptions.GUARD_MAX_DUE_ON_ARRIVAL_CONFIG
            + ": documents due on arrival deleted per window before the"
            + " rest are held for approval; 0 turns the guard off for this rule. Unset: the global value.";

    public static final String GUARD_WINDOW_MS_CONFIG = "guard.window.ms";
    public static final String GUARD_WINDOW_MS_DOC =
            "This rule's " + SchedulerOptions.GUARD_WINDOW_MS_CONFIG + ", in milliseconds. Unset: the global value.";

    /**
     * Options that apply only when another option of the rule has one value (the mode, the action); setting them
     * otherwise is a mistake worth stopping for. A list, so that the first of several mistakes is reported the same
     * way every time.
     */
    private static final List<OnlyWhen> ONLY_WHEN = List.of(
            new OnlyWhen(FIELD_CONFIG, MODE_CONFIG, TtlMode.FIELD.configValue()),
            new OnlyWhen(FIELD_FORMAT_CONFIG, MODE_CONFIG, TtlMode.FIELD.configValue()),
            new OnlyWhen(DOCUMENT_TTL_FIELD_CONFIG, MODE_CONFIG, TtlMode.LAST_MODIFIED.configValue()),
            new OnlyWhen(MODIFIED_FIELD_CONFIG, MODE_CONFIG, TtlMode.LAST_MODIFIED.configValue()),
            new OnlyWhen(MARK_FIELD_CONFIG, ACTION_CONFIG, "mark"),
            new OnlyWhen(DELETE_AFTER_SECONDS_CONFIG, ACTION_CONFIG, "mark"));

    /** Option {@code option} applies only when option {@code controller} is {@code value}. */
    private record OnlyWhen(String option, String controller, String value) {}

    private RuleConfig() {}

    /** The per-rule options under their own names, as documented; the embedded copies carry the prefix. */
    public static ConfigDef configDef() {
        return definition("");
    }

    /** The prefix of the options of the rule called {@code ruleName}: {@code ttl.rule.<ruleName>.}. */
    public static String prefix(String ruleName) {
        return PREFIX + ruleName + ".";
    }

    /** Adds the options of rule {@code ruleName} to {@code target}, under {@link #prefix}. */
    static void embedInto(ConfigDef target, String ruleName) {
        String prefix = prefix(ruleName);
        target.embed(prefix, "Rule " + ruleName, 0, definition(prefix));
    }

    /**
     * Rule {@code ruleName} from {@code config}, in which its options are embedded. Checks what single options
     * cannot: which options each mode requires or forbids.
     *
     * @throws ConfigException naming the offending option
     */
    static TtlRule toRule(String ruleName, AbstractConfig config) {
        String prefix = prefix(ruleName);
        Map<String, Object> originals = config.originals();
        TtlMode mode = TtlMode.fromConfigValue(config.getString(prefix + MODE_CONFIG));
        for (OnlyWhen onlyWhen : ONLY_WHEN) {
            String option = prefix + onlyWhen.option();
            Object value = originals.get(option);
            String actual = config.getString(prefix + onlyWhen.controller());
            if (!actual.equals(onlyWhen.value())
                    && value != null
                    && !value.toString().isBlank()) {
                throw new ConfigException(
                        option,
                        value,
                        "Applies only when " + prefix + onlyWhen.controller() + " is " + onlyWhen.value()
                                + ", and this rule's " + onlyWhen.controller() + " is " + actual);
            }
        }
        String field = optional(config.getString(prefix + FIELD_CONFIG));
        if (mode == TtlMode.FIELD && field == null) {
            throw missing(
                    prefix + FIELD_CONFIG,
                    "when " + prefix + MODE_CONFIG + " is field: name the date field to expire documents by");
        }
        Double expireAfterSeconds = config.getDouble(prefix + EXPIRE_AFTER_SECONDS_CONFIG);
        if (mode == TtlMode.LAST_MODIFIED && expireAfterSeconds == null) {
            throw missing(
                    prefix + EXPIRE_AFTER_SECONDS_CONFIG,
                    "when " + prefix + MODE_CONFIG + " is last-modified: it is the collection's default TTL");
        }
        String documentTtlField = optional(config.getString(prefix + DOCUMENT_TTL_FIELD_CONFIG));
        if (expireAfterSeconds != null
                && expireAfterSeconds == TtlRule.NO_DEFAULT
                && (mode != TtlMode.LAST_MODIFIED || documentTtlField == null)) {
            throw new ConfigException(
                    prefix + EXPIRE_AFTER_SECONDS_CONFIG,
                    expireAfterSeconds,
                    "-1 (no default TTL: only documents with their own expire) needs " + prefix + MODE_CONFIG
                            + "=last-modified and " + prefix + DOCUMENT_TTL_FIELD_CONFIG
                            + "; without them nothing would expire");
        }
        if (mode == TtlMode.LAST_MODIFIED && expireAfterSeconds == 0) {
            throw new ConfigException(
                    prefix + EXPIRE_AFTER_SECONDS_CONFIG,
                    originals.get(prefix + EXPIRE_AFTER_SECONDS_CONFIG),
                    "A last-modified rule with expire.after.seconds 0 expires every document the moment it is"
                            + " written; set at least 1 (Cosmos DB refuses a default TTL of 0 for the same reason)");
        }
        String partialFilter = optional(config.getString(prefix + PARTIAL_FILTER_CONFIG));
        MarkAction mark = markAction(prefix, config);
        return new TtlRule(
                ruleName,
                NamespacePattern.parse(config.getString(prefix + NAMESPACE_CONFIG)),
                mode,
                field,
                expireAfterSeconds == null ? 0 : expireAfterSeconds.longValue(),
                FieldFormat.fromConfigValue(config.getString(prefix + FIELD_FORMAT_CONFIG)),
                partialFilter == null ? null : parsePartialFilter(partialFilter),
                documentTtlField,
                optional(config.getString(prefix + MODIFIED_FIELD_CONFIG)),
                mark);
    }

    /** The rule's mark action; null for a rule that deletes. */
    private static MarkAction markAction(String prefix, AbstractConfig config) {
        if (config.getString(prefix + ACTION_CONFIG).equals(ACTION_DEFAULT)) {
            return null;
        }
        String markField = optional(config.getString(prefix + MARK_FIELD_CONFIG));
        if (markField == null) {
            throw missing(
                    prefix + MARK_FIELD_CONFIG,
                    "when " + prefix + ACTION_CONFIG + " is mark: name the field the" + " mark sets to the deadline");
        }
        return new MarkAction(markField, config.getLong(prefix + DELETE_AFTER_SECONDS_CONFIG));
    }

    /**
     * @param reportedPrefix what errors prefix option names with (see {@link Validators#reportingUnder})
     */
    private static ConfigDef definition(String reportedPrefix) {
        Function<ConfigDef.Validator, ConfigDef.Validator> named = v -> Validators.reportingUnder(reportedPrefix, v);
        ConfigDef.Validator fieldPath = named.apply(
                Validators.blankOr(Validators.of("a dotted field path", value -> BsonPaths.validate((String) value))));
        return new ConfigDef()
                .define(
                        NAMESPACE_CONFIG,
                        Type.STRING,
                        ConfigDef.NO_DEFAULT_VALUE,
                        named.apply(Validators.of("db.coll or db.*", value -> NamespacePattern.parse((String) value))),
                        Importance.HIGH,
                        NAMESPACE_DOC)
                .define(
                        MODE_CONFIG,
                        Type.STRING,
                        TtlMode.FIELD.configValue(),
                        named.apply(ConfigDef.ValidString.in(
                                ConfigValues.spellings(TtlMode.class).toArray(String[]::new))),
                        Importance.HIGH,
                        MODE_DOC)
                .define(FIELD_CONFIG, Type.STRING, null, fieldPath, Importance.HIGH, FIELD_DOC)
                .define(
                        EXPIRE_AFTER_SECONDS_CONFIG,
                        Type.DOUBLE,
                        null,
                        named.apply(Validators.nullOr(Validators.of(
                                "-1 or a whole number from 0 to " + Integer.MAX_VALUE, RuleConfig::checkWholeSeconds))),
                        Importance.HIGH,
                        EXPIRE_AFTER_SECONDS_DOC)
                .define(
                        FIELD_FORMAT_CONFIG,
                        Type.STRING,
                        FieldFormat.DATE.configValue(),
                        named.apply(ConfigDef.ValidString.in(
                                ConfigValues.spellings(FieldFormat.class).toArray(String[]::new))),
                        Importance.MEDIUM,
                        FIELD_FORMAT_DOC)
                .define(
                        PARTIAL_FILTER_CONFIG,
                        Type.STRING,
                        null,
                        named.apply(Validators.blankOr(
                                Validators.of("a JSON filter document", value -> parsePartialFilter((String) value)))),
                        Importance.MEDIUM,
                        PARTIAL_FILTER_DOC)
                .define(
                        DOCUMENT_TTL_FIELD_CONFIG,
                        Type.STRING,
                        null,
                        fieldPath,
                        Importance.MEDIUM,
                        DOCUMENT_TTL_FIELD_DOC)
                .define(MODIFIED_FIELD_CONFIG, Type.STRING, null, fieldPath, Importance.MEDIUM, MODIFIED_FIELD_DOC)
                .define(
                        ACTION_CONFIG,
                        Type.STRING,
                        ACTION_DEFAULT,
                        named.apply(ConfigDef.ValidString.in(ACTION_DEFAULT, "mark")),
                        Importance.MEDIUM,
                        ACTION_DOC)
                .define(MARK_FIELD_CONFIG, Type.STRING, null, fieldPath, Importance.MEDIUM, MARK_FIELD_DOC)
                .define(
                        DELETE_AFTER_SECONDS_CONFIG,
                        Type.LONG,
                        null,
                        named.apply(Validators.nullOr(ConfigDef.Range.between(0, Integer.MAX_VALUE))),
                        Importance.MEDIUM,
                        DELETE_AFTER_SECONDS_DOC)
                .define(
                        NOTICE_BEFORE_SECONDS_CONFIG,
                        Type.LONG,
                        null,
                        named.apply(Validators.nullOr(ConfigDef.Range.between(1, Integer.MAX_VALUE))),
                        Importance.MEDIUM,
                        NOTICE_BEFORE_SECONDS_DOC)
                .define(
                        EXPIRED_DOCUMENT_CONFIG,
                        Type.STRING,
                        EXPIRED_DOCUMENT_DEFAULT,
                        named.apply(ConfigDef.ValidString.in(
                                ConfigValues.spellings(ExpiredDocument.class).toArray(String[]::new))),
                        Importance.MEDIUM,
                        EXPIRED_DOCUMENT_DOC)
                .define(
                        GUARD_MAX_DUE_ON_ARRIVAL_CONFIG,
                        Type.INT,
                        null,
                        named.apply(Validators.nullOr(ConfigDef.Range.atLeast(0))),
                        Importance.MEDIUM,
                        GUARD_MAX_DUE_ON_ARRIVAL_DOC)
                .define(
                        GUARD_WINDOW_MS_CONFIG,
                        Type.LONG,
                        null,
                        named.apply(Validators.nullOr(ConfigDef.Range.atLeast(SchedulerOptions.MIN_WINDOW_MS))),
                        Importance.LOW,
                        GUARD_WINDOW_MS_DOC);
    }

    /**
     * A whole number of seconds in the range of MongoDB's {@code expireAfterSeconds}; parsed as a double, since
     * MongoDB reads a whole-number double (3600.0) as that number.
     */
    private static void checkWholeSeconds(Object value) {
        double seconds = (Double) value;
        if (!(seconds >= TtlRule.NO_DEFAULT && seconds <= Integer.MAX_VALUE && seconds == Math.rint(seconds))) {
            throw new IllegalArgumentException("not -1 or a whole number from 0 to " + Integer.MAX_VALUE);
        }
    }

    /** Worded like Kafka's own error for an option without a default. */
    private static ConfigException missing(String option, String condition) {
        return new ConfigException("Missing required configuration \"" + option + "\" " + condition);
    }

    /** MongoDB's own limit: a BSON document nests at most 100 levels deep, so a filter deeper than that is a mistake. */
    static final int PARTIAL_FILTER_MAX_DEPTH = 100;

    /**
     * @throws IllegalArgumentException when {@code json} is not a JSON document, nests deeper than {@value
     *     #PARTIAL_FILTER_MAX_DEPTH} levels, or is not a supported filter
     */
    private static PartialFilter parsePartialFilter(String json) {
        BsonDocument expression;
        try {
            expression = BoundedJson.parse(json, PARTIAL_FILTER_MAX_DEPTH, false);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Not a JSON document: " + e.getMessage(), e);
        }
        return PartialFilter.parse(expression);
    }

    /** Blank counts as unset, so that an example file's empty placeholder ({@code key=}) means "none". */
    private static String optional(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
