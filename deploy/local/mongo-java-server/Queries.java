// Query helpers shared by the launcher's collections of both backends (see Main.java).
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

final class Queries {
    private Queries() {}

    /** The query restricted to its `_id` condition, when it has one and something more. */
    static Document idPart(Document query) {
        if (query == null || query.size() < 2 || !query.containsKey("_id")) return null;
        return new Document("_id", query.get("_id"));
    }

    static <P> Index<P> idIndex(List<Index<P>> indexes, Document idOnly) {
        for (Index<P> index : indexes) if (index.canHandle(idOnly)) return index;
        return null;
    }

    /**
     * `{a: 1, b: {$in: [x, y]}}` as `{a: 1, b: x}` and `{a: 1, b: y}`: a query with exactly one
     * `$in` of plain values (strings, numbers) and plain values elsewhere; null for anything else.
     */
    static List<Document> pointQueries(Document query) {
        if (query == null || query.size() < 2) return null;
        String inField = null;
        List<Object> values = null;
        for (Map.Entry<String, Object> entry : query.entrySet()) {
            Object value = entry.getValue();
            if (entry.getKey().startsWith("$") || value instanceof Collection<?>) return null;
            if (!(value instanceof Document condition)) continue;
            if (inField != null || condition.size() != 1 || !(condition.get("$in") instanceof Collection<?> in)) return null;
            inField = entry.getKey();
            values = new ArrayList<>(in);
        }
        if (inField == null || values.isEmpty()) return null;
        List<Document> points = new ArrayList<>(values.size());
        for (Object value : values) {
            if (!(value instanceof String || value instanceof Number)) return null;
            Document point = new Document(query);
            point.put(inField, value);
            points.add(point);
        }
        return points;
    }

    /** Where the documents of every point query are, from one index that answers them all; or null. */
    static <P> Iterable<P> pointPositions(List<Index<P>> indexes, List<Document> points) {
        if (points == null) return null;
        for (Index<P> index : indexes) {
            if (!index.canHandle(points.get(0))) continue;
            Set<P> positions = new LinkedHashSet<>();
            for (Document point : points) for (P position : index.getPositions(point)) positions.add(position);
            return positions;
        }
        return null;
    }

    /**
     * Where the documents of a query are, from an index that answers its `_id` part or else its
     * point queries; null when neither is answered (the collection's own plan then runs).
     */
    static <P> Iterable<P> indexedPositions(List<Index<P>> indexes, Document query) {
        Document idOnly = idPart(query);
        Index<P> index = idOnly == null ? null : idIndex(indexes, idOnly);
        if (index != null) return index.getPositions(idOnly);
        return pointPositions(indexes, pointQueries(query));
    }

    /** Above this many documents kept for a sorted page, the whole match is sorted instead. */
    static final int TOP_KEPT_MAX = 100_000;

    /** Whether `topPage` serves a sorted read of this skip and limit (a bounded page). */
    static boolean keepsTopPage(int skip, int limit) {
        return limit > 0 && (long) skip + limit <= TOP_KEPT_MAX;
    }

    /**
     * The documents of a sorted page, `skip` then `limit`, keeping only the `skip + limit` first
     * in a heap while the matches stream by, instead of collecting and sorting every match: a
     * page deep in a scan of a million documents holds a few thousand of them, not the million
     * (the server's heap is 1 GB). The same documents as a full sort up to the order of ties,
     * which MongoDB does not define either. Only for a page `keepsTopPage` accepts.
     */
    static List<Document> topPage(Stream<Document> matches, Comparator<Document> order, int skip, int limit) {
        int kept = skip + limit;
        PriorityQueue<Document> heap = new PriorityQueue<>(kept + 1, order.reversed());
        matches.forEachOrdered(document -> {
            if (heap.size() < kept) {
                heap.add(document);
            } else if (order.compare(document, heap.peek()) < 0) {
                heap.poll();
                heap.add(document);
            }
        });
        List<Document> sorted = new ArrayList<>(heap);
        sorted.sort(order);
        return sorted.size() <= skip ? List.of() : sorted.subList(skip, sorted.size());
    }

    /** A collection's own `matchDocumentsFromStream` (the server's), which `sortedPage` hands on to. */
    @FunctionalInterface
    interface StreamMatch {
        QueryResult match(Document query, Stream<Document> documents, int skip, int limit, int batchSize,
                Comparator<Document> order, Document projection);
    }

    /**
     * A collection's `matchDocumentsFromStream` for both backends: a sorted page `keepsTopPage`
     * accepts is cut by `topPage` from the documents `matches` keeps, and handed on already in
     * order; any other read goes to the server's own (`serverMatch`), its sort under the time limit.
     */
    static QueryResult sortedPage(Document query, Stream<Document> documents, int skip, int limit, int batchSize,
            Comparator<Document> order, Document projection, Predicate<Document> matches, StreamMatch serverMatch) {
        if (order == null) return serverMatch.match(query, documents, skip, limit, batchSize, null, projection);
        // Decided before the stream is touched: a stream used once (even by `filter`) cannot be
        // handed on (a sorted find without a limit failed with "stream has already been operated
        // upon or closed").
        if (!keepsTopPage(skip, limit)) {
            return serverMatch.match(query, documents, skip, limit, batchSize, TimeLimit.checked(order), projection);
        }
        List<Document> page = topPage(documents.filter(matches), order, skip, limit);
        return serverMatch.match(query, page.stream(), 0, 0, batchSize, null, projection);
    }

    /**
     * `maxTimeMS` of the command the current thread is running: scans and sorts call `check`
     * and fail with MongoDB's MaxTimeMSExpired (code 50) once it has passed, as mongod does. A
     * client that gave up on a request so stops the scan it started, instead of leaving it to
     * read a whole collection for nobody (docs/local-database.md).
     */
    static final class TimeLimit {
        private static final ThreadLocal<TimeLimit> CURRENT = new ThreadLocal<>();
        private final long deadline;
        private int checks;

        private TimeLimit(long deadline) {
            this.deadline = deadline;
        }

        static void start(Object maxTimeMS) {
            if (maxTimeMS instanceof Number ms && ms.longValue() > 0) {
                CURRENT.set(new TimeLimit(System.nanoTime() + ms.longValue() * 1_000_000L));
            } else {
                CURRENT.remove();
            }
        }

        static void clear() {
            CURRENT.remove();
        }

        /** Cheap enough per document: the clock is read every 256 calls. */
        static void check() {
            TimeLimit limit = CURRENT.get();
            if (limit == null || (++limit.checks & 255) != 0) return;
            if (System.nanoTime() - limit.deadline > 0) {
                CURRENT.remove(); // the error reply is built without further checks
                throw new MongoServerError(50, "MaxTimeMSExpired", "operation exceeded time limit");
            }
        }

        static <T> Comparator<T> checked(Comparator<T> order) {
            return (a, b) -> {
                check();
                return order.compare(a, b);
            };
        }
    }

    static List<Document> collect(Stream<Document> documents) {
        return documents.collect(Collectors.toList());
    }
}
