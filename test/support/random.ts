/** The seeded generator the property tests draw from (so a failing random case reproduces from its seed): the one bounce plants defects with. */
export { seededRandom as seeded } from '../../src/defects/plant.js';
