/** The NATS subject the bench's skeleton gateway and service share (skeleton-gateway.ts). */
export const SKELETON_SUBJECT = 'bench.skeleton.visit';
