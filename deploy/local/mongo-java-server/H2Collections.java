// The H2 backend (`npm start`, the bench) with the launcher's query plans and key order
// (Main.java, Queries.java, docs/local-database.md).
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.QueryParameters;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import de.bwaldvogel.mongo.backend.h2.H2UniqueIndex;
import de.bwaldvogel.mongo.bson.Document;
import java.lang.reflect.Constructor;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.type.ObjectDataType;

final class IdFirstH2Backend extends H2Backend {
    /** The H2 store of the one backend of this process (needed while the database is being built). */
    static MVStore store;

    /**
     * How long H2 keeps chunks no longer referenced by the newest version before it reuses their
     * space: H2's own default (45 s), or `MJS_RETAIN_FREED_CHUNKS_MS` (the tests set 0 to show
     * that the version pin below is what keeps a long scan's chunks, not the time).
     */
    static final int RETAIN_FREED_CHUNKS_MS = retention(System.getenv("MJS_RETAIN_FREED_CHUNKS_MS"));

    IdFirstH2Backend(String file) {
        super(file);
        // The server reads a collection (a scan, a cursor) on the map's root of the moment
        // without registering it with the store as a version in use, so H2 may reuse the space
        // of chunks that root still points to once they are older than the retention time. A
        // scan that outlasts it while writes go on failed with "Chunk ... not found" or, if the
        // space was rewritten, "File corrupted in chunk" (a scan of 100,000s of documents under
        // inserts). Every command now pins the version it starts on (`pinVersion`, Main.java),
        // so the retention no longer has to outlast the longest scan. It was an hour before:
        // the file grew by about 40 KB per document written (47 GB for 1,200,000).
        getMvStore().setRetentionTime(RETAIN_FREED_CHUNKS_MS);
    }

    static int retention(String configured) {
        if (configured == null || configured.isBlank()) return 45_000;
        return Integer.parseInt(configured.trim());
    }

    /**
     * Registers the store's current version as in use until the returned release runs: H2 keeps
     * every chunk a reader of that version may still reach (MVStore.registerVersionUsage), as
     * its own SQL engine does for a statement. A command's reads all start after the pin, so
     * none of them meets a chunk whose space was reused under it.
     */
    Runnable pinVersion() {
        MVStore mvStore = getMvStore();
        MVStore.TxCounter counter = mvStore.registerVersionUsage();
        return () -> mvStore.deregisterVersionUsage(counter);
    }

    // Also called from H2Backend's constructor for databases already in the file.
    @Override
    protected MongoDatabase openOrCreateDatabase(String name) {
        store = getMvStore();
        return new IdFirstH2Database(name, store, getCursorRegistry());
    }
}

final class IdFirstH2Database extends H2Database {
    IdFirstH2Database(String name, MVStore mvStore, CursorRegistry registry) {
        super(name, mvStore, registry);
    }

    // The same maps H2Database opens for a collection (`databases.` and `meta.` + namespace).
    @Override
    protected MongoCollection<Object> openOrCreateCollection(String collection, CollectionOptions options) {
        String namespace = getFullCollectionNamespace(collection);
        MVMap<Object, Document> data = IdFirstH2Backend.store.openMap("databases." + namespace);
        MVMap<String, Object> meta = IdFirstH2Backend.store.openMap("meta." + namespace);
        return new IdFirstH2Collection(this, collection, options, data, meta, cursorRegistry);
    }

    // As H2Database opens a unique index (same map name), with a key type that compares
    // keys as values when the store uses that order.
    @Override
    protected Index<Object> openOrCreateUniqueIndex(String collection, String indexName, List<IndexKey> keys, boolean sparse) {
        String mapName = getFullCollectionNamespace(collection) + "._index_" + indexName;
        MVMap<KeyValue, Object> map = IndexKeyType.valueOrdered()
                ? IdFirstH2Backend.store.openMap(mapName, new MVMap.Builder<KeyValue, Object>().keyType(IndexKeyType.INSTANCE))
                : IdFirstH2Backend.store.openMap(mapName);
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

/**
 * Unique-index keys compared field by field as MongoDB orders values (the keys are already
 * normalized by the server: numbers as one type), without serializing them. Anything else
 * is compared as H2 does.
 */
final class IndexKeyType extends ObjectDataType {
    static final IndexKeyType INSTANCE = new IndexKeyType();
    private static final Comparator<Object> VALUES = ValueComparator.ascWithoutListHandling();

    /** The order a store's unique-index keys are kept in, decided once per store and kept in it. */
    private static Boolean valueOrder;

    static synchronized boolean valueOrdered() {
        if (valueOrder == null) {
            MVStore store = IdFirstH2Backend.store;
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

/**
 * Reads without the collection's lock. The server holds a collection's monitor for every
 * query, write and whole scan, so one long scan (a deep page, a filtered list: a minute and
 * more at a million documents) stopped every write and read of that collection, for every
 * merchant. H2's maps can be read while written (a read sees each document whole, before or
 * after a write, as on MongoDB), so queries run outside the monitor here; writes keep it.
 * Writes change a document they looked up in place, which a reader holding that same object
 * would see half done, so a writer (a thread holding the monitor) works on a copy, which its
 * `handleUpdate` then stores.
 */
final class IdFirstH2Collection extends H2Collection {
    private final MVMap<Object, Document> data;

    IdFirstH2Collection(MongoDatabase db, String name, CollectionOptions options,
            MVMap<Object, Document> data, MVMap<String, Object> meta, CursorRegistry registry) {
        super(db, name, options, data, meta, registry);
        this.data = data;
    }

    // AbstractMongoCollection.handleQuery, without `synchronized`.
    @Override
    public QueryResult handleQuery(QueryParameters parameters) {
        Document selector = parameters.getQuerySelector();
        Document query = selector;
        Document orderBy = null;
        if (selector.containsKey("query")) {
            query = (Document) selector.get("query");
            orderBy = (Document) selector.get("orderby");
        } else if (selector.containsKey("$query")) {
            query = (Document) selector.get("$query");
            orderBy = (Document) selector.get("$orderby");
        }
        return queryDocuments(query, orderBy, parameters.getNumberToSkip(), parameters.getLimit(),
                parameters.getBatchSize(), parameters.getProjection());
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document projection) {
        Iterable<Object> positions = Queries.indexedPositions(getIndexes(), query);
        if (positions != null) return matchDocuments(query, positions, orderBy, skip, limit, batchSize, projection);
        return super.queryDocuments(query, orderBy, skip, limit, batchSize, projection);
    }

    private boolean writing() {
        return Thread.holdsLock(this);
    }

    @Override
    protected Document getDocument(Object position) {
        Document document = super.getDocument(position);
        return document != null && writing() ? document.cloneDeeply() : document;
    }

    // An index may name a document whose insert (or delete) is half done: it is not there yet.
    @Override
    protected QueryResult matchDocuments(Document query, Iterable<Object> positions, Document orderBy,
            int skip, int limit, int batchSize, Document projection) {
        Stream<Document> documents = StreamSupport.stream(positions.spliterator(), false)
                .map(this::getDocument)
                .filter(Objects::nonNull);
        return matchDocumentsFromStream(documents, query, orderBy, skip, limit, batchSize, projection);
    }

    // A scan: a writer's matches are copies (see the class).
    @Override
    protected QueryResult matchDocuments(Document query, Document orderBy, int skip, int limit, int batchSize,
            Document projection) {
        if (!writing() || isNaturalDescending(orderBy)) return super.matchDocuments(query, orderBy, skip, limit, batchSize, projection);
        Stream<Document> copies = data.values().stream()
                .filter(document -> documentMatchesQuery(document, query))
                .map(Document::cloneDeeply);
        return matchDocumentsFromStream(copies, query, orderBy, skip, limit, batchSize, projection);
    }

    @Override
    protected boolean documentMatchesQuery(Document document, Document query) {
        Queries.TimeLimit.check();
        return super.documentMatchesQuery(document, query);
    }

    @Override
    protected QueryResult matchDocumentsFromStream(Document query, Stream<Document> documents, int skip, int limit,
            int batchSize, Comparator<Document> order, Document projection) {
        return Queries.sortedPage(query, documents, skip, limit, batchSize, order, projection,
                document -> documentMatchesQuery(document, query), super::matchDocumentsFromStream);
    }

    // What an aggregation reads (countDocuments is one): streamed from the map, not first
    // collected into a list of the whole collection, and stopped by the command's time limit.
    @Override
    public Stream<Document> queryAllAsStream() {
        return data.values().stream().peek(document -> Queries.TimeLimit.check());
    }
}
