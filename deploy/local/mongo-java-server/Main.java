// Launcher of the local MongoDB wire-protocol server (mongo-java-server), started by tools/devstack
// when no MONGO_URL and no Docker engine are there. Usage:
//   java -cp 'lib/*' Main.java --port 27017 [--host 127.0.0.1] [--backend h2|memory] [--file data.mv]
// Runs until killed; a JVM shutdown hook closes the server so the H2 store is flushed on SIGTERM.
//
// One change to the server's query planning (see docs/local-database.md): mongo-java-server uses
// an index only when a query's fields are exactly the index's, so `{_id, merchant_id, state}` (a
// conditional update) scanned the whole collection. The collections below answer any query that
// pins `_id` from the `_id` index and match the rest of the query on what it finds: the same
// results, found as MongoDB finds them. Likewise a query of exactly a unique index's fields with
// one `$in` among them (`{merchant_id, customer_key: {$in: [...]}}`, a batch of look-ups by key)
// is answered by one index look-up per value instead of a scan.
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import de.bwaldvogel.mongo.backend.h2.H2UniqueIndex;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.type.ObjectDataType;

public class Main {
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 27017;
        String backendName = "memory";
        String file = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--host" -> host = args[i + 1];
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--backend" -> backendName = args[i + 1];
                case "--file" -> file = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        MongoBackend backend = switch (backendName) {
            case "memory" -> new IdFirstMemoryBackend();
            case "h2" -> {
                if (file == null) throw new IllegalArgumentException("--backend h2 needs --file");
                yield new IdFirstH2Backend(file);
            }
            default -> throw new IllegalArgumentException("unknown backend " + backendName);
        };
        MongoServer server = new MongoServer(backend);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
        server.bind(host, port);
        System.out.println("mongo-java-server (" + backendName + ") listening on " + host + ":" + port);
    }

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

    static final class IdFirstMemoryBackend extends MemoryBackend {
        @Override
        public MemoryDatabase openOrCreateDatabase(String name) {
            return new MemoryDatabase(name, getCursorRegistry()) {
                @Override
                protected MemoryCollection openOrCreateCollection(String collection, CollectionOptions options) {
                    return new IdFirstMemoryCollection(this, collection, options, cursorRegistry);
                }
            };
        }
    }

    static final class IdFirstMemoryCollection extends MemoryCollection {
        IdFirstMemoryCollection(MongoDatabase db, String name, CollectionOptions options, CursorRegistry registry) {
            super(db, name, options, registry);
        }

        @Override
        protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document projection) {
            Document idOnly = idPart(query);
            Index<Integer> index = idOnly == null ? null : idIndex(getIndexes(), idOnly);
            if (index != null) return matchDocuments(query, index.getPositions(idOnly), orderBy, skip, limit, batchSize, projection);
            Iterable<Integer> points = pointPositions(getIndexes(), pointQueries(query));
            if (points != null) return matchDocuments(query, points, orderBy, skip, limit, batchSize, projection);
            return super.queryDocuments(query, orderBy, skip, limit, batchSize, projection);
        }
    }

    /** The H2 store of the one backend of this process (needed while the database is being built). */
    static MVStore store;

    /** How long H2 keeps chunks no longer referenced by the newest version (see IdFirstH2Backend). */
    static final int RETAIN_FREED_CHUNKS_MS = 3_600_000;

    static final class IdFirstH2Backend extends H2Backend {
        IdFirstH2Backend(String file) {
            super(file);
            // The server reads a collection (a scan, a cursor) on the map's root of the moment
            // without registering it with the store as a version in use, so H2 may reuse the space
            // of chunks that root still points to once they are older than the retention time
            // (45 s by default). A scan that outlasts it while writes go on fails with "Chunk ...
            // not found" or, if the space was rewritten, "File corrupted in chunk" (seen on a
            // scan of a collection of 100,000s of documents under inserts: docs/local-database.md).
            // Space is reused only after an hour: the file grows by up to an hour of writes more.
            getMvStore().setRetentionTime(RETAIN_FREED_CHUNKS_MS);
        }

        // Also called from H2Backend's constructor for databases already in the file.
        @Override
        protected MongoDatabase openOrCreateDatabase(String name) {
            store = getMvStore();
            return new IdFirstH2Database(name, store, getCursorRegistry());
        }
    }

    static final class IdFirstH2Database extends H2Database {
        IdFirstH2Database(String name, MVStore mvStore, CursorRegistry registry) {
            super(name, mvStore, registry);
        }

        // The same maps H2Database opens for a collection (`databases.` and `meta.` + namespace).
        @Override
        protected MongoCollection<Object> openOrCreateCollection(String collection, CollectionOptions options) {
            String namespace = getFullCollectionNamespace(collection);
            MVMap<Object, Document> data = store.openMap("databases." + namespace);
            MVMap<String, Object> meta = store.openMap("meta." + namespace);
            return new IdFirstH2Collection(this, collection, options, data, meta, cursorRegistry);
        }

        // As H2Database opens a unique index (same map name), with a key type that compares
        // keys as values when the store uses that order.
        @Override
        protected Index<Object> openOrCreateUniqueIndex(String collection, String indexName, List<IndexKey> keys, boolean sparse) {
            String mapName = getFullCollectionNamespace(collection) + "._index_" + indexName;
            MVMap<KeyValue, Object> map = valueOrderedIndexKeys()
                    ? store.openMap(mapName, new MVMap.Builder<KeyValue, Object>().keyType(IndexKeyType.INSTANCE))
                    : store.openMap(mapName);
            try {
                Constructor<H2UniqueIndex> constructor = H2UniqueIndex.class.getDeclaredConstructor(
                        MVMap.class, String.class, List.class, boolean.class);
                constructor.setAccessible(true); // package-private in the server
                return constructor.newInstance(map, indexName, keys, sparse);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot open unique index " + mapName, e);
            }
        }
    }

    /** The order a store's unique-index keys are kept in, decided once per store and kept in it. */
    static Boolean valueOrder;

    static synchronized boolean valueOrderedIndexKeys() {
        if (valueOrder == null) {
            MVMap<String, String> settings = store.openMap("launcher.settings");
            String order = settings.get("index-key-order");
            if (order == null) {
                boolean hasIndexes = store.getMapNames().stream().anyMatch(name -> name.contains("._index_"));
                order = hasIndexes ? "serialized" : "value";
                settings.put("index-key-order", order);
                store.commit(); // before any key is written in that order
            }
            valueOrder = order.equals("value");
        }
        return valueOrder;
    }

    /**
     * Unique-index keys compared field by field as MongoDB orders values (the keys are already
     * normalized by the server: numbers as one type), without serializing them. Anything else
     * is compared as H2 does.
     */
    static final class IndexKeyType extends ObjectDataType {
        static final IndexKeyType INSTANCE = new IndexKeyType();
        private static final Comparator<Object> VALUES = ValueComparator.ascWithoutListHandling();

        @Override
        public int compare(Object a, Object b) {
            if (a instanceof KeyValue left && b instanceof KeyValue right) {
                int fields = Math.min(left.size(), right.size());
                for (int i = 0; i < fields; i++) {
                    int order = VALUES.compare(left.get(i), right.get(i));
                    if (order != 0) return order;
                }
                return Integer.compare(left.size(), right.size());
            }
            return super.compare(a, b);
        }
    }

    static final class IdFirstH2Collection extends H2Collection {
        IdFirstH2Collection(MongoDatabase db, String name, CollectionOptions options,
                MVMap<Object, Document> data, MVMap<String, Object> meta, CursorRegistry registry) {
            super(db, name, options, data, meta, registry);
        }

        @Override
        protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document projection) {
            Document idOnly = idPart(query);
            Index<Object> index = idOnly == null ? null : idIndex(getIndexes(), idOnly);
            if (index != null) return matchDocuments(query, index.getPositions(idOnly), orderBy, skip, limit, batchSize, projection);
            Iterable<Object> points = pointPositions(getIndexes(), pointQueries(query));
            if (points != null) return matchDocuments(query, points, orderBy, skip, limit, batchSize, projection);
            return super.queryDocuments(query, orderBy, skip, limit, batchSize, projection);
        }
    }
}
