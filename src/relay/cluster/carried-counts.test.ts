import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { counterFamily, gaugeFamily, histogramFamily } from '../../platform/metrics/metric-family.ts';
import { renderPrometheus } from '../../platform/metrics/render-prometheus.ts';
import { CarriedCounts, type ScrapedSlot, scrapeSlot } from './carried-counts.ts';

const requests = (value: number, status = '200') =>
  counterFamily('ambit_relay_http_requests_total', 'Requests.', [{ labels: { status, route: '/r' }, value }]);
const latency = (count: number) =>
  histogramFamily('ambit_relay_latency_seconds', 'Latency.', [
    { metricName: 'ambit_relay_latency_seconds_count', labels: { route: '/r' }, value: count },
  ]);
const up = gaugeFamily('ambit_relay_processes', 'Processes.', [{ labels: {}, value: 1 }]);

describe('CarriedCounts', () => {
  it('sums the counters and histograms of processes that are gone, label by label, and leaves gauges out', () => {
    const carried = new CarriedCounts();
    assert.deepEqual(carried.get(), []);
    carried.add([requests(5), latency(5), up]);
    // Labels in another order are the same series.
    carried.add([
      counterFamily('ambit_relay_http_requests_total', 'Requests.', [
        { labels: { route: '/r', status: '200' }, value: 3 },
        { labels: { route: '/r', status: '404' }, value: 1 },
      ]),
    ]);
    const families = carried.get();
    assert.deepEqual(
      families.map((family) => family.name),
      ['ambit_relay_http_requests_total', 'ambit_relay_latency_seconds'],
    );
    assert.deepEqual(
      families[0]?.values.map((sample) => sample.value),
      [8, 1],
    );
  });

  it('keeps the summed counter from going down when a worker is replaced', async () => {
    const carried = new CarriedCounts();
    const before = await renderPrometheus([[requests(100)], [requests(50)]]);
    // The second worker exits after that scrape; its replacement has served 2 requests so far.
    carried.add([requests(50)]);
    const after = await renderPrometheus([[requests(110)], [requests(2)], carried.get()]);
    const total = (text: string) => Number(/ambit_relay_http_requests_total\{[^}]*\} (\d+)/.exec(text)?.[1]);
    assert.equal(total(before), 150);
    assert.equal(total(after), 162);
  });

  it('keeps the counts of a worker that exits while a scrape waits for its answer', async () => {
    const slot: ScrapedSlot & { listening: boolean } = {
      listening: true,
      scraped: undefined,
      carried: new CarriedCounts(),
    };
    const total = async (families: Promise<unknown>) =>
      Number(
        /ambit_relay_http_requests_total\{[^}]*\} (\d+)/.exec(
          await renderPrometheus((await families) as Parameters<typeof renderPrometheus>[0]),
        )?.[1],
      );
    assert.equal(
      await total(
        scrapeSlot(
          slot,
          async () => [requests(7)],
          () => [up],
        ),
      ),
      7,
    );
    // The worker exits before it answers the next scrape: the primary carries its last counts (what its exit
    // handler does) and only then sees the request fail.
    const exited = scrapeSlot(
      slot,
      async () => {
        slot.listening = false;
        if (slot.scraped !== undefined) slot.carried.add(slot.scraped);
        slot.scraped = undefined;
        throw new Error('worker 1 exited');
      },
      () => [up],
    );
    assert.equal(await total(exited), 7);
  });
});
