package io.ttlstreams.rules;

import static io.ttlstreams.rules.RuleBuilder.doc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PartialFilterTest {

    private static boolean matches(String filter, String document) {
        return PartialFilter.parse(doc(filter)).matches(doc(document));
    }

    @ParameterizedTest(name = "{0} matches {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                // equality, on dotted paths, across numeric types, against arrays, and null as missing
                "{status: 'active'}            | {status: 'active'}                  | true",
                "{status: 'active'}            | {status: 'closed'}                  | false",
                "{status: 'active'}            | {}                                  | false",
                "{'user.tier': 'gold'}         | {user: {tier: 'gold'}}              | true",
                "{'user.tier': 'gold'}         | {user: {tier: 'silver'}}            | false",
                "{'user.tier': 'gold'}         | {user: [{tier: 'silver'}, {tier: 'gold'}]} | true",
                "{'tags.1': 'b'}               | {tags: ['a', 'b']}                  | true",
                "{n: 5}                        | {n: NumberLong(5)}                  | true",
                "{n: 5}                        | {n: 5.0}                            | true",
                "{n: 5}                        | {n: NumberDecimal('5.00')}          | true",
                "{n: 5}                        | {n: '5'}                            | false",
                "{n: NumberLong('9007199254740993')} | {n: 9007199254740992.0}       | false",
                "{tags: 'x'}                   | {tags: ['w', 'x']}                  | true",
                "{tags: ['w', 'x']}            | {tags: ['w', 'x']}                  | true",
                "{tags: ['x', 'w']}            | {tags: ['w', 'x']}                  | false",
                "{tags: ['x']}                 | {tags: [['x'], 'y']}                | true",
                "{gone: null}                  | {}                                  | true",
                "{gone: null}                  | {gone: null}                        | true",
                "{gone: null}                  | {gone: 0}                           | false",
                "{sub: {a: 1, b: 2}}           | {sub: {a: 1, b: 2}}                 | true",
                "{sub: {a: 1, b: 2}}           | {sub: {b: 2, a: 1}}                 | false",
                "{n: {$eq: 5}}                 | {n: 5}                              | true",
                "{x: {$numberDouble: 'NaN'}}   | {x: {$numberDouble: 'NaN'}}         | true",
                "{}                            | {any: 1}                            | true",
                // $exists
                "{a: {$exists: true}}          | {a: null}                           | true",
                "{a: {$exists: true}}          | {b: 1}                              | false",
                "{a: {$exists: false}}         | {b: 1}                              | true",
                "{'a.b': {$exists: 1}}         | {a: [{c: 1}, {b: 2}]}               | true",
                // ranges within one class: numbers, strings, dates
                "{n: {$gt: 5}}                 | {n: 6}                              | true",
                "{n: {$gt: 5}}                 | {n: 5}                              | false",
                "{n: {$gte: 5}}                | {n: NumberLong(5)}                  | true",
                "{n: {$lt: 5}}                 | {n: 4.5}                            | true",
                "{n: {$lte: 5}}                | {n: 6}                              | false",
                "{n: {$gt: 5}}                 | {n: '6'}                            | false",
                "{n: {$gt: 5}}                 | {}                                  | false",
                "{n: {$gt: 5}}                 | {n: [1, 9]}                         | true",
                "{n: {$gt: 5, $lt: 8}}         | {n: 9}                              | false",
                "{n: {$lt: 5}}                 | {n: {$numberDouble: 'NaN'}}         | false",
                "{n: {$lt: 5}}                 | {n: {$numberDouble: '-Infinity'}}   | true",
                "{s: {$gte: 'b'}}              | {s: 'banana'}                       | true",
                "{s: {$lt: 'b'}}               | {s: 'apple'}                        | true",
                "{s: {$gt: '\uFFFF'}}          | {s: '\uD83D\uDE00'}                 | true",
                "{d: {$lt: {$date: '2026-01-01T00:00:00Z'}}} | {d: {$date: '2025-12-31T23:59:59Z'}} | true",
                "{d: {$lt: {$date: '2026-01-01T00:00:00Z'}}} | {d: {$date: '2026-01-01T00:00:00Z'}} | false",
                "{d: {$lt: {$date: '2026-01-01T00:00:00Z'}}} | {d: 0}                       | false",
                // $type by alias, by code, and with arrays
                "{d: {$type: 'date'}}          | {d: {$date: '2026-01-01T00:00:00Z'}} | true",
                "{d: {$type: 9}}               | {d: {$date: '2026-01-01T00:00:00Z'}} | true",
                "{d: {$type: 'date'}}          | {d: '2026-01-01'}                   | false",
                "{v: {$type: 'string'}}        | {v: 'x'}                            | true",
                "{v: {$type: 'int'}}           | {v: 1}                              | true",
                "{v: {$type: 'long'}}          | {v: 1}                              | false",
                "{v: {$type: 'long'}}          | {v: NumberLong(1)}                  | true",
                "{v: {$type: 'double'}}        | {v: 1.5}                            | true",
                "{v: {$type: 'number'}}        | {v: NumberDecimal('1')}             | true",
                "{v: {$type: 'number'}}        | {v: 'x'}                            | false",
                "{v: {$type: 'bool'}}          | {v: false}                          | true",
                "{v: {$type: 'object'}}        | {v: {}}                             | true",
                "{v: {$type: 'array'}}         | {v: []}                             | true",
                "{v: {$type: 'array'}}         | {v: 'x'}                            | false",
                "{v: {$type: 'string'}}        | {v: [1, 'x']}                       | true",
                "{v: {$type: 'null'}}          | {v: null}                           | true",
                "{v: {$type: 'null'}}          | {}                                  | false",
                "{v: {$type: 'objectId'}}      | {v: {$oid: '5f1b2c3d4e5f6a7b8c9d0e1f'}} | true",
                "{v: {$type: ['string', 'int']}} | {v: 3}                            | true",
                "{v: {$type: -1}}              | {v: {$minKey: 1}}                   | true",
                // $in and $and
                "{s: {$in: ['a', 'b']}}        | {s: 'b'}                            | true",
                "{s: {$in: ['a', 'b']}}        | {s: 'c'}                            | false",
                "{s: {$in: ['a', null]}}       | {}                                  | true",
                "{s: {$in: [5]}}               | {s: [1, 5.0]}                       | true",
                "{s: {$in: []}}                | {s: 1}                              | false",
                "{$and: [{a: 1}, {b: 2}]}      | {a: 1, b: 2}                        | true",
                "{$and: [{a: 1}, {b: 2}]}      | {a: 1, b: 3}                        | false",
                "{$and: [{$and: [{a: 1}]}], c: {$exists: true}} | {a: 1, c: 0}         | true",
                // $or, which MongoDB 6.0 allows in a partial index
                "{$or: [{a: 1}, {b: 2}]}       | {b: 2}                              | true",
                "{$or: [{a: 1}, {b: 2}]}       | {a: 2, b: 1}                        | false",
                "{$or: [{a: 1}], c: 3}         | {a: 1, c: 4}                        | false",
                "{$and: [{$or: [{a: {$gt: 1}}, {a: {$exists: false}}]}]} | {}          | true",
            })
    void shouldMatchLikeMongoDb(String filter, String document, boolean expected) {
        assertThat(matches(filter, document)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{$or: [{a: {$nor: 1}}]}      | $nor",
                "{$nor: [{a: 1}]}             | $nor",
                "{$where: 'true'}             | $where",
                "{$expr: {$eq: ['$a', 1]}}    | $expr",
                "{a: {$ne: 1}}                | $ne",
                "{a: {$nin: [1]}}             | $nin",
                "{a: {$regex: 'x'}}           | $regex",
                "{a: {$not: {$gt: 1}}}        | $not",
                "{a: {$elemMatch: {b: 1}}}    | $elemMatch",
                "{a: {$size: 1}}              | $size",
                "{a: {$all: [1]}}             | $all",
                "{a: {$gt: 1, b: 2}}          | b",
                "{$and: [{a: {$mod: [2, 0]}}]} | $mod",
            })
    void shouldRejectUnsupportedOperatorsByName(String filter, String operator) {
        assertThatThrownBy(() -> PartialFilter.parse(doc(filter)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unsupported partial filter operator " + operator);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{$and: {a: 1}}               | $and",
                "{$and: []}                   | $and",
                "{$and: [1]}                  | $and",
                "{a: {$in: 1}}                | $in",
                "{a: {$gt: true}}             | $gt",
                "{a: {$lte: null}}            | $lte",
                "{a: {$type: 'when'}}         | $type",
                "{a: {$type: 42}}             | $type",
                "{a: {$type: 9.5}}            | $type",
                "{a: {$exists: 'yes'}}        | $exists",
                "{a: /x/}                     | a regular expression, which would match by pattern",
                "{a: {$in: [/x/]}}            | a regular expression, which would match by pattern",
                "{a: {b: {$gt: 1}}}           | would be read as an operator",
                "{a: {$in: [{$x: 1}]}}        | would be read as an operator",
                "{'a..b': 1}                  | a..b",
                "{'a.$b': 1}                  | a.$b",
            })
    void shouldRejectMalformedExpressionsNamingTheCulprit(String filter, String culprit) {
        assertThatThrownBy(() -> PartialFilter.parse(doc(filter)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(culprit);
    }

    @Test
    void shouldKeepItsOwnCopyOfTheExpression() {
        BsonDocument expression = doc("{status: 'active'}");
        PartialFilter filter = PartialFilter.parse(expression);

        expression.put("status", new BsonInt32(1));
        filter.expression().put("other", new BsonInt32(2));

        assertThat(filter.expression()).isEqualTo(doc("{status: 'active'}"));
        assertThat(filter.matches(doc("{status: 'active'}"))).isTrue();
    }
}
